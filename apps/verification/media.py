"""What a verification item's image or video is, decided from its bytes, never from its name.

The review page shows an item's visual in an <img> or a <video> from Sori's own origin, so a file that a
browser would run (SVG with a <script>, HTML) must never be stored, nor served inline if one is already
stored. The type comes from the file's magic bytes (the `filetype` library); a video must also be a
container ffprobe reads with a video stream a browser plays. Only the types below are accepted at import
and served inline; anything else already stored is served as an application/octet-stream attachment."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import filetype
from django.utils.translation import gettext

from apps.audio import ffmpeg
from apps.core.errors import FileRefused

# What <img> and <video> in every current browser show. Neither list may ever hold a type a browser runs
# script from (image/svg+xml, text/html, application/xhtml+xml, text/xml, application/pdf...).
IMAGE_TYPES = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WebP"}
VIDEO_TYPES = {"video/mp4": "MP4", "video/webm": "WebM"}
VIDEO_CODECS = {"h264", "vp8", "vp9", "av1"}
SERVABLE_TYPES = IMAGE_TYPES.keys() | VIDEO_TYPES.keys()
# The extension a file served as each type is named with; .bin for a file served only as a download.
EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
              "video/mp4": ".mp4", "video/webm": ".webm"}
# filetype reads at most this much of a file's start to find its signature.
_HEAD_BYTES = 8192


class MediaRejected(FileRefused):
    """A visual file that is not an image or video the review page can show ("pic.svg: is not an image...")."""

    def __init__(self, name: str, reason: str):
        self.name, self.reason = name, reason
        super().__init__(reason, file=name, code="media_rejected")


def sniff(head: bytes) -> str | None:
    """The MIME type the bytes' signature says, or None when no known signature matches."""
    kind = filetype.guess(head)
    return kind.mime if kind else None


def inspect_visual(path: Path, *, kind: str, name: str | None = None) -> str:
    """The content type of an item's image (kind "image") or video (kind "video"), checked from its
    content; raises MediaRejected naming the file when it is anything else."""
    name = name or path.name
    with open(path, "rb") as fh:
        head = fh.read(_HEAD_BYTES)
    if not head:
        raise MediaRejected(name, gettext("is empty"))
    mime = sniff(head)
    if kind == "image":
        if mime not in IMAGE_TYPES:
            raise MediaRejected(name, gettext(
                "is not an image the review page can show (%(image_types)s); its content is %(content)s"
            ) % {"image_types": _listed(IMAGE_TYPES), "content": _described(mime, head)})
        return mime
    if mime not in VIDEO_TYPES:
        raise MediaRejected(name, gettext(
            "is not a video the review page can show (%(video_types)s); its content is %(content)s"
        ) % {"video_types": _listed(VIDEO_TYPES), "content": _described(mime, head)})
    streams = [s for s in ffmpeg.probe(path).get("streams", []) if s.get("codec_type") == "video"]
    if not streams:
        raise MediaRejected(name, gettext("has no video stream ffprobe can read"))
    codec = streams[0].get("codec_name", "")
    if codec not in VIDEO_CODECS:
        raise MediaRejected(name, gettext(
            "is %(unknown)s video, which browsers do not play (accepted: %(video_codecs)s)"
        ) % {"unknown": codec or 'an unknown', "video_codecs": ', '.join(sorted(VIDEO_CODECS))})
    return mime


def served_type(fh) -> str | None:
    """The type to serve an already stored visual inline with, or None when it must not be shown inline
    (a file stored before this check, or put there by hand). Reads the signature and rewinds."""
    head = fh.read(_HEAD_BYTES)
    fh.seek(0)
    mime = sniff(head)
    return mime if mime in SERVABLE_TYPES else None


def served_name(stored_name: str, content_type: str | None) -> str:
    """The file name a stored visual is served under: its stem with the extension of the type its content
    was checked to be, never the one the importer's file had. A GIF that is also an HTML page, imported as
    poly.html, is served as poly.gif, so neither a browser nor a desktop saving it opens it as HTML."""
    return PurePosixPath(stored_name).stem + EXTENSIONS.get(content_type or "", ".bin")


def _listed(types: dict[str, str]) -> str:
    names = list(types.values())
    return ", ".join(names[:-1]) + f" or {names[-1]}"


def _described(mime: str | None, head: bytes) -> str:
    if mime:
        return mime
    text = head.lstrip()[:200].lower()
    if b"<svg" in text or (text.startswith(b"<?xml") and b"svg" in head.lower()):
        return "SVG, which can carry script"
    if text.startswith((b"<!doctype html", b"<html")) or b"<script" in text:
        return "HTML, which can carry script"
    return "of no image or video type"
