"""Limits on what an upload may cost. Every upload form names its kind: `@upload_limit("bundle")` on a view,
`upload_limit = "audio"` on a ModelAdmin; settings.UPLOAD_LIMITS gives each kind its size and the variable
that sets it. UploadLimitMiddleware refuses a request body over its limit from its Content-Length, before a
byte is read (413, naming the limit and the variable); a request that names no kind may carry at most
DATA_UPLOAD_MAX_MEMORY_SIZE (SORI_REQUEST_MAX_BYTES). An upload form refuses a body of unknown length (a
chunked upload, 411), and the bytes of every uploaded file are counted as they are read (LimitedUploadHandler),
so the limit holds whatever the server in front passes on."""

from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, RequestDataTooBig
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import JsonResponse
from django.template.defaultfilters import filesizeformat
from django.urls import Resolver404, resolve
from django.utils.translation import gettext

from apps.core.errors import ApplicationError
from apps.core.middleware import render_refusal

__all__ = ["UploadRefused", "Limit", "upload_limit", "LimitedUploadHandler", "UploadLimitMiddleware"]


class UploadRefused(ApplicationError):
    """A request body refused before it was read (or while its files were read): too large (413), or of
    unknown length where an upload form needs it (411)."""

    status = 413
    code = "upload_too_large"

    def __init__(self, message: str, *, status: int = 413, code: str | None = None):
        super().__init__(message, code=code)
        self.status = status


@dataclass(frozen=True)
class Limit:
    bytes: int
    variable: str  # the environment variable that sets it
    what: str  # "this form" or "a request without an upload"

    def __str__(self) -> str:
        readable = f" ({filesizeformat(self.bytes)})" if self.bytes >= 1024 else ""
        return f"{self.bytes:,} bytes{readable}, set by {self.variable}"


def upload_limit(kind: str):
    """Declare the upload kind of a page view (a key of settings.UPLOAD_LIMITS)."""
    if kind not in settings.UPLOAD_LIMITS:
        raise ImproperlyConfigured(f"upload_limit({kind!r}): not a kind in settings.UPLOAD_LIMITS")

    def declare(view):
        view.upload_limit = kind
        return view

    return declare


class LimitedUploadHandler(FileUploadHandler):
    """First of the request's upload handlers: counts the bytes of every file as the parser reads them and
    stops the upload (the rest is not read, the files so far are closed and removed) past the limit."""

    def __init__(self, limit: Limit, request=None):
        super().__init__(request)
        self.limit = limit
        self.received = 0
        self.exceeded = False

    def receive_data_chunk(self, raw_data, start):
        self.received += len(raw_data)
        if self.received > self.limit.bytes:
            self.exceeded = True
            raise StopUpload(connection_reset=True)
        return raw_data

    def file_complete(self, file_size):
        return None  # the next handler stores the file


class UploadLimitMiddleware:
    """Checks a request's body against its view's limit before any view middleware reads it (CSRF reads
    request.POST), and parses a multipart body here, so a refusal is a page or a JSON error, never a 500."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.META.get("CONTENT_LENGTH") and "HTTP_TRANSFER_ENCODING" not in request.META:
            return self.get_response(request)  # no body: nothing to check (most GETs)
        match = _resolve(request)
        try:
            _check(request, _limit_for(match))
        except UploadRefused as refused:
            return _refusal(request, match, refused)
        return self.get_response(request)


def _resolve(request):
    try:
        return resolve(request.path_info, urlconf=getattr(request, "urlconf", None))
    except Resolver404:
        return None


def _limit_for(match) -> Limit | None:
    """The declared limit of the view `match` names, or None for a view that takes no upload."""
    if match is None:
        return None
    func = match.func
    owners = (func, getattr(func, "model_admin", None), getattr(func, "view_class", None), getattr(func, "cls", None))
    kind = next((o.upload_limit for o in owners if getattr(o, "upload_limit", None)), None)
    if kind is None:
        return None
    size, variable = settings.UPLOAD_LIMITS[kind]
    return Limit(size, variable, "this form")


def _check(request, declared: Limit | None) -> None:
    limit = declared or Limit(settings.DATA_UPLOAD_MAX_MEMORY_SIZE, "SORI_REQUEST_MAX_BYTES", "a request without an upload")
    meta = request.META
    try:
        length = int(meta.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0  # Django reads no body of an unreadable length
    if length > limit.bytes:
        raise UploadRefused(gettext(
            "This request is %(length)s bytes; %(what)s accepts at most %(limit)s."
        ) % {"length": f"{length:,}", "what": limit.what, "limit": limit})
    if declared and not length and "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower():
        raise UploadRefused(
            gettext(
                "An upload without a Content-Length (chunked) is not read; send the file with its length. "
                "%(what)s accepts at most %(limit)s."
            ) % {"what": limit.what.capitalize(), "limit": limit}, status=411, code="length_required",
        )
    if not request.content_type == "multipart/form-data":
        return
    counter = LimitedUploadHandler(limit, request)
    request.upload_handlers.insert(0, counter)
    try:
        request.FILES  # noqa: B018 -- parse here, where a refusal can still be answered
    except RequestDataTooBig:
        raise UploadRefused(
            gettext(
                "The form fields of this request are over %(bytes)s bytes "
                "(%(size)s), set by SORI_REQUEST_MAX_BYTES."
            ) % {
                "bytes": f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,}",
                "size": filesizeformat(settings.DATA_UPLOAD_MAX_MEMORY_SIZE),
            }
        ) from None
    if counter.exceeded:
        raise UploadRefused(gettext(
            "The files of this upload passed the limit of %(limit)s while being read; nothing was stored."
        ) % {"limit": limit})


def _refusal(request, match, refused: UploadRefused):
    if (match is not None and getattr(match.func, "cls", None) is not None) or request.path_info.startswith("/api/"):
        return JsonResponse({"detail": refused.message, "code": refused.code, "fields": {}}, status=refused.status)
    return render_refusal(request, refused)
