"""The file name an exported or released audio file gets: a safe stem from its id and one extension, the one
its bytes call for (AudioAsset.format, as ffprobe read them). An id that keeps its source's file name
("wq_0001.wav") so becomes "wq_0001.wav", not "wq_0001.wav.wav", and MP3 bytes are never named .wav."""

import re

# ffprobe's format (apps.audio.inspection._format_name) -> the extension people and `datasets` expect.
_EXTENSIONS = {"wav": "wav", "mp3": "mp3", "flac": "flac", "ogg": "ogg", "m4a": "m4a", "aac": "aac", "webm": "webm"}
# What an id may end with because it was a file name; dropped before the extension of the bytes is added.
_AUDIO_SUFFIX = re.compile(r"\.(wav|wave|mp3|flac|ogg|oga|opus|m4a|mp4|aac|webm|mka)$", re.IGNORECASE)


def extension(asset) -> str:
    """The extension of the asset's bytes, without a dot."""
    if asset.format == "matroska":
        # Stored as WebM when its codecs allow, else as Matroska (apps.audio.strip.stored_form): the
        # EBML header at the start of the file names its DocType.
        with asset.file.open("rb") as fh:
            return "webm" if b"webm" in fh.read(64) else "mka"
    return _EXTENSIONS.get(asset.format, asset.format or "bin")


def without_audio_suffix(identifier: str) -> str:
    """The id without a trailing audio file extension ("kss/1_0001.wav" -> "kss/1_0001")."""
    return _AUDIO_SUFFIX.sub("", identifier)


def file_name(identifier: str, asset, *, fallback: str) -> str:
    """A safe file name for the asset's audio from an id: letters, digits, dot, dash and underscore kept,
    the id's own audio extension replaced by the bytes' (`fallback` when nothing of the id is left)."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", without_audio_suffix(identifier)).strip("._") or fallback
    return f"{stem}.{extension(asset)}"
