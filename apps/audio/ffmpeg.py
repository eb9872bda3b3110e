"""ffmpeg's two programs, the one way Sori runs them: ffprobe to describe a file, ffmpeg to decode or
transcode it. Both are found on PATH once; a file is always passed by path or on stdin, never through a
shell."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

FFMPEG = shutil.which("ffmpeg") or "ffmpeg"
FFPROBE = shutil.which("ffprobe") or "ffprobe"
TIMEOUT_SECONDS = 600


class FfmpegFailed(Exception):
    """ffmpeg could not read or write the file. str() ends with ffmpeg's own last words (its stderr)."""


def probe(path: Path) -> dict:
    """ffprobe's description of the file: {"format": {...}, "streams": [...]}; {} when ffprobe cannot
    read it at all (not a media file)."""
    try:
        run = subprocess.run([FFPROBE, "-v", "error", "-of", "json", "-show_format", "-show_streams", str(path)],
                             capture_output=True, timeout=TIMEOUT_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    try:
        return json.loads(run.stdout.decode("utf-8", "ignore") or "{}")
    except ValueError:
        return {}


def run(args: list[str], *, input: bytes | None = None) -> bytes:
    """ffmpeg with these arguments (inputs, options and output); returns what it wrote to stdout. Raises
    FfmpegFailed with its exit code and stderr when it fails or writes nothing to a pipe it was asked to."""
    # -nostdin unless the input comes on stdin: ffmpeg must never wait for a key press.
    command = [FFMPEG, *(["-nostdin"] if input is None else []), "-v", "error", "-y", *args]
    try:
        done = subprocess.run(command, input=input, capture_output=True, timeout=TIMEOUT_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FfmpegFailed(str(exc)) from None
    if done.returncode != 0 or (args[-1] in ("-", "pipe:1") and not done.stdout):
        raise FfmpegFailed(f"ffmpeg returned error code {done.returncode}\n{done.stderr.decode(errors='replace')}")
    return done.stdout
