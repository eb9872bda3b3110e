"""Requests to an endpoint Sori does not trust: a model under evaluation, at a URL an admin typed. Whatever it
answers, one request costs at most a bounded amount of memory and time, never follows the endpoint elsewhere,
and never reaches an address it must not.

- `check_url`: the URL's rules, at creation and again before every request: http(s), no credentials in it,
  in SORI_EVALUATION_ENDPOINT_HOSTS when that is set, never a link-local or cloud metadata address, and not
  Sori's own host (loopback, ALLOWED_HOSTS) unless SORI_EVALUATION_ALLOW_LOCAL_ENDPOINTS. `check_address`
  applies the address rules to the peer a request actually connected to (a name may resolve elsewhere later).
- `bounded_client(guard)`: an httpx2 client (the transport the openai SDK uses) for one request: no
  redirects, no keep-alive (each request has its own socket), and a body read as a stream under a byte cap
  counted after decompression (gzip and deflate are decoded here with a bounded zlib decompressobj; other
  encodings are refused).
- `Guard`: one request's overall deadline and cancel flag. A watchdog thread shuts the request's socket down
  when either fires, so a request is cut whatever phase it is in (an endpoint dripping a byte every few
  seconds never resets anything).

Every refusal is an EndpointFailure whose `kind` is a short fixed phrase (safe to show to any role); its
message may carry the endpoint's words and is for an admin's excerpt only."""

import ipaddress
import logging
import re
import socket
import threading
import time
import zlib
from urllib.parse import urlsplit

import httpx2
from django.conf import settings

from apps.agents.transport import PermanentVendorError, TransientVendorError

# Cloud metadata services: never an endpoint, whatever the settings say.
METADATA_HOSTS = {"metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"}
METADATA_ADDRESSES = {ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "169.254.170.2", "100.100.100.200")}
WATCHDOG_TICK = 0.1  # seconds between the watchdog's looks at the requests in flight


class EndpointFailure(PermanentVendorError):
    """The endpoint's answer (or its address) was refused. `kind` names the reason in a few fixed words."""

    def __init__(self, kind: str, detail: str = ""):
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind


class EndpointRefused(EndpointFailure):
    """The endpoint's URL or address is not one Sori may send to."""

    def __init__(self, detail: str):
        super().__init__("endpoint refused", detail)


class RequestCancelled(PermanentVendorError):
    """The job asked to stop while the request was in flight."""

    kind = "cancelled"


class RequestTimedOut(TransientVendorError):
    """The whole request (connect, wait and body) took longer than its deadline."""

    kind = "timed out"


# --- where an endpoint may point -------------------------------------------------------------------------------
def _own_host_names() -> set[str]:
    names = {"localhost"}
    for host in settings.ALLOWED_HOSTS:
        host = host.strip().lower().lstrip(".").strip("[]")
        if host and host != "*":
            names.add(host)
    return names


def _is_local(address) -> bool:
    return address.is_loopback or address.is_unspecified


def check_address(address: str, *, allow_local: bool | None = None) -> None:
    """Refuse an IP address no endpoint may have: link-local and metadata always, loopback (Sori's own
    host) unless local endpoints are allowed."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    if ip in METADATA_ADDRESSES:
        raise EndpointRefused(f"{ip} is a cloud metadata address")
    if ip.is_link_local:
        raise EndpointRefused(f"{ip} is a link-local address")
    allow_local = settings.EVALUATION_ALLOW_LOCAL_ENDPOINTS if allow_local is None else allow_local
    if _is_local(ip) and not allow_local:
        raise EndpointRefused(f"{ip} is Sori's own host (SORI_EVALUATION_ALLOW_LOCAL_ENDPOINTS allows it)")


def check_url(url: str) -> str:
    """The URL's host, or EndpointRefused saying why no request may go there (see the module's docstring).
    Names are checked as written; the address a name resolves to is checked when a request connects."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower().rstrip(".")
        parts.port  # noqa: B018  (raises ValueError on a port that is not a number)
    except ValueError:
        raise EndpointRefused("the URL cannot be read") from None
    if parts.scheme not in ("http", "https") or not host:
        raise EndpointRefused("the endpoint must be an http(s) URL with a host")
    if "@" in parts.netloc:
        raise EndpointRefused("the URL carries credentials; give the key as the model's key variable instead")
    allowed = [h.strip().lower() for h in settings.EVALUATION_ENDPOINT_HOSTS if h.strip()]
    if allowed and host not in allowed:
        raise EndpointRefused(f"{host} is not among SORI_EVALUATION_ENDPOINT_HOSTS")
    if host in METADATA_HOSTS:
        raise EndpointRefused(f"{host} is a cloud metadata service")
    try:
        check_address(host)
    except ValueError:  # a name, not an address
        own = _own_host_names()
        if (host in own or host.endswith(".localhost")) and not settings.EVALUATION_ALLOW_LOCAL_ENDPOINTS:
            raise EndpointRefused(f"{host} is Sori's own host (SORI_EVALUATION_ALLOW_LOCAL_ENDPOINTS allows it)") from None
    return host


# --- one request's deadline and cancel flag, and the watchdog --------------------------------------------------
class Guard:
    """One request's limits: `timeout` seconds for all of it, and `cancelled` (an Event the job sets). The
    socket is taken from httpcore's trace as it connects, so the watchdog can shut it down."""

    def __init__(self, timeout: float, cancelled: threading.Event | None = None):
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.cancelled = cancelled
        self.socket: socket.socket | None = None
        self.reason: PermanentVendorError | TransientVendorError | None = None
        self._lock = threading.Lock()

    def why_stop(self):
        if self.cancelled is not None and self.cancelled.is_set():
            return RequestCancelled("the job was cancelled")
        if time.monotonic() > self.deadline:
            return RequestTimedOut(f"no complete answer within {self.timeout:g} s")
        return None

    def check(self) -> None:
        stop = self.why_stop()
        if stop is not None:
            self.reason = self.reason or stop
            raise stop

    def abort(self, reason) -> None:
        with self._lock:
            self.reason = self.reason or reason
            if self.socket is not None:
                try:
                    self.socket.shutdown(socket.SHUT_RDWR)  # wakes the reader blocked on it, in any phase
                except OSError:
                    pass

    def trace(self, name: str, info: dict) -> None:
        """httpcore's trace extension: on connect, keep the socket and check the peer's address."""
        if name != "connection.connect_tcp.complete":
            return
        sock = info["return_value"].get_extra_info("socket")
        try:
            check_address(sock.getpeername()[0])
        except EndpointRefused as exc:
            self.reason = exc
            sock.close()
            raise
        with self._lock:
            self.socket = sock
        if self.reason is not None or self.why_stop() is not None:
            self.abort(self.why_stop())

    def __enter__(self):
        _watchdog.add(self)
        return self

    def __exit__(self, *exc):
        _watchdog.discard(self)


class _Watchdog:
    """One daemon thread for the process, started on first use, that aborts guarded requests past their
    deadline or cancelled."""

    def __init__(self):
        self.guards: set[Guard] = set()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def add(self, guard: Guard) -> None:
        with self.lock:
            self.guards.add(guard)
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name="endpoint-watchdog", daemon=True)
                self.thread.start()

    def discard(self, guard: Guard) -> None:
        with self.lock:
            self.guards.discard(guard)

    def _run(self) -> None:
        while True:
            time.sleep(WATCHDOG_TICK)
            with self.lock:
                guards = list(self.guards)
            for guard in guards:
                stop = guard.why_stop()
                if stop is not None:
                    guard.abort(stop)


_watchdog = _Watchdog()


# --- the bounded transport -------------------------------------------------------------------------------------
_DECODED = {"gzip", "x-gzip", "deflate"}


class _CappedStream(httpx2.SyncByteStream):
    """The body as it arrives, decompressed here when it is gzip or deflate, refused past `cap` bytes."""

    def __init__(self, inner, encoding: str, cap: int, guard: Guard):
        self.inner, self.cap, self.guard = inner, cap, guard
        # MAX_WBITS | 32 reads a gzip or a zlib header, whichever comes.
        self.decoder = zlib.decompressobj(zlib.MAX_WBITS | 32) if encoding in _DECODED else None

    def _count(self, data: bytes, total: int) -> int:
        total += len(data)
        if total > self.cap:
            raise EndpointFailure("answer too large", f"more than {self.cap} bytes")
        return total

    def __iter__(self):
        total = 0
        for chunk in self.inner:
            self.guard.check()
            if self.decoder is None:
                total = self._count(chunk, total)
                yield chunk
                continue
            data = chunk
            while data:
                try:
                    # At most one byte past the cap is inflated, however much the compressed bytes hold.
                    out = self.decoder.decompress(data, self.cap + 1 - total)
                except zlib.error:
                    raise EndpointFailure("bad compressed answer") from None
                total = self._count(out, total)
                yield out
                data = self.decoder.unconsumed_tail
        if self.decoder is not None:
            total = self._count(self.decoder.flush(self.cap + 1 - total), total)

    def close(self) -> None:
        self.inner.close()


class BoundedTransport(httpx2.BaseTransport):
    """An httpx2 transport for one guarded request (see the module's docstring)."""

    def __init__(self, guard: Guard, *, max_bytes: int):
        self.guard, self.max_bytes = guard, max_bytes
        self.inner = httpx2.HTTPTransport(limits=httpx2.Limits(max_keepalive_connections=0), retries=0)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        self.guard.check()
        check_url(str(request.url))
        request.headers["accept-encoding"] = "gzip, deflate"  # only encodings decoded under the cap here
        request.headers["connection"] = "close"
        request.extensions = {**request.extensions, "trace": self.guard.trace}
        response = self.inner.handle_request(request)
        if 300 <= response.status_code < 400:
            response.close()
            raise EndpointFailure("redirect refused", f"HTTP {response.status_code}")
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in _DECODED | {"identity", ""}:
            response.close()
            raise EndpointFailure("unsupported encoding", encoding[:40])
        headers = [(k, v) for k, v in response.headers.raw if k.lower() not in (b"content-encoding", b"content-length")]
        return httpx2.Response(response.status_code, headers=headers, extensions=response.extensions,
                               stream=_CappedStream(response.stream, encoding, self.max_bytes, self.guard))

    def close(self) -> None:
        self.inner.close()


def bounded_client(guard: Guard, *, max_bytes: int | None = None) -> httpx2.Client:
    """The httpx2 client for one guarded request (pass it to the SDK as http_client; close it after)."""
    max_bytes = max_bytes or settings.EVALUATION_RESPONSE_MAX_BYTES
    # Each phase may take the whole deadline at most; the watchdog holds the request to the deadline overall.
    timeout = httpx2.Timeout(guard.timeout, connect=min(guard.timeout, 10.0))
    return httpx2.Client(transport=BoundedTransport(guard, max_bytes=max_bytes), follow_redirects=False,
                         timeout=timeout, trust_env=False)


# --- HTTP client logs --------------------------------------------------------------------------------------------
_USERINFO = re.compile(r"(?<=://)[^/@\s'\"]+@")
_SECRET_HEADER = re.compile(r"(?i)((?:authorization|api[-_]key|x-api-key|proxy-authorization)['\"]?\s*[:=,]\s*['\"]?)"
                            r"(?:bearer\s+|basic\s+)?[^'\",}\s]+")
CLIENT_LOGGERS = ("httpx2", "httpx", "httpcore2", "httpcore2.connection", "httpcore2.http11", "httpcore2.http2",
                  "httpcore2.proxy", "httpcore", "httpcore.connection", "httpcore.http11", "openai", "openai._base_client")


class RedactingFilter(logging.Filter):
    """Takes a URL's userinfo and secret headers out of an HTTP client's log line (httpx logs every request's
    URL at INFO; the SDKs log request options at DEBUG)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = _SECRET_HEADER.sub(r"\1[redacted]", _USERINFO.sub("[redacted]@", message))
        if clean != message:
            record.msg, record.args = clean, ()
        return True


def redact_client_logs() -> None:
    """Install RedactingFilter on the HTTP client loggers (a logger's filters do not reach its children, so
    each is named); called once as apps.agents loads."""
    for name in CLIENT_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactingFilter) for f in logger.filters):
            logger.addFilter(RedactingFilter())
