"""HTTP Range support (RFC 9110, single byte range) for serving audio, so browsers can seek."""

import os

from django.http import FileResponse, HttpResponse


def parse_range(header: str | None, size: int) -> tuple[int, int] | None | str:
    """(start, end) inclusive for a satisfiable single range; None to serve the whole file (no header, or
    one we ignore as RFC 9110 allows: another unit, several ranges, bad syntax); "unsatisfiable"."""
    if not header or not header.startswith("bytes=") or "," in header:
        return None
    spec = header[len("bytes="):].strip()
    start_text, sep, end_text = spec.partition("-")
    if not sep:
        return None
    try:
        if start_text == "":
            suffix = int(end_text)
            if suffix <= 0:
                return "unsatisfiable"
            return max(0, size - suffix), size - 1
        start = int(start_text)
        end = int(end_text) if end_text else size - 1
    except ValueError:
        return None
    if start >= size:
        return "unsatisfiable"
    if end < start:
        return None
    return start, min(end, size - 1)


class _Slice:
    """A file object that reads only [start, start+length)."""

    def __init__(self, fh, start: int, length: int):
        self.fh, self.remaining = fh, length
        fh.seek(start)

    def read(self, n: int = -1) -> bytes:
        if self.remaining <= 0:
            return b""
        n = self.remaining if n < 0 else min(n, self.remaining)
        data = self.fh.read(n)
        self.remaining -= len(data)
        return data

    def close(self):
        self.fh.close()


def ranged_file_response(fh, *, content_type: str, range_header: str | None, etag: str = "",
                         filename: str = "") -> HttpResponse:
    """The file, whole or the one range asked for. `filename` names it in Content-Disposition (inline);
    without it Django would name it after the stored file, whose extension the importer chose."""
    size = os.fstat(fh.fileno()).st_size if hasattr(fh, "fileno") else fh.size
    parsed = parse_range(range_header, size)
    if parsed == "unsatisfiable":
        fh.close()
        response = HttpResponse(status=416)
        response["Content-Range"] = f"bytes */{size}"
    elif parsed is None:
        response = FileResponse(fh, content_type=content_type, filename=filename)
        response["Content-Length"] = str(size)
    else:
        start, end = parsed
        response = FileResponse(_Slice(fh, start, end - start + 1), content_type=content_type, status=206,
                                filename=filename)
        response["Content-Length"] = str(end - start + 1)
        response["Content-Range"] = f"bytes {start}-{end}/{size}"
    response["Accept-Ranges"] = "bytes"
    response["Cache-Control"] = "private, max-age=3600"
    if etag:
        response["ETag"] = f'"{etag}"'
    return response
