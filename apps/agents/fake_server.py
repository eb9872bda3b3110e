"""A fake LLM provider on 127.0.0.1, for tests and for the demo's scripted provider (apps/pages/demo_provider.py).
It speaks the Anthropic Messages API (POST /v1/messages) and the OpenAI Chat Completions API (POST /v1/chat/completions), so the real `anthropic` and `openai` SDKs talk
to it over HTTP. No test mocks the SDKs and no test reaches the internet.

The `fake_llm` fixture (tests/fakes/llm_server.py) points the SDKs at the server (ANTHROPIC_BASE_URL, OPENAI_BASE_URL, dummy keys) for
one test and makes our retry backoff short. Script it:

    fake_llm.reply({"verdict": "confirm"})          # the next answer (a dict is sent as JSON text)
    fake_llm.reply("plain text", times=3)            # the next three answers
    fake_llm.reply_when(lambda body: "Paris" in str(body), {...})   # whenever the request matches
    fake_llm.always({...})                           # fallback for any request nothing else answers
    fake_llm.fail(status=429, retry_after=0.2)       # the next request gets an error (times=N for more)
    fake_llm.fail(status=500)
    fake_llm.malformed()                             # the next answer is text that is not valid JSON
    fake_llm.slow(1.5)                               # the next request waits 1.5 s before answering
    fake_llm.refuse("temperature")                   # every request carrying it gets the vendor's 400 for it
    fake_llm.serve_as("gpt-4o-mini-2024-07-18")      # the model the answers say answered (default: the one asked)
    fake_llm.ignore_n()                              # answer once whatever `n` asks, as some compatible servers do
    fake_llm.requests                                # what arrived: [{"api", "path", "body", "model"}]
    audio_parts(request["body"])                     # its input_audio parts (malformed ones get a 400, as vLLM)
    fake_llm.max_in_flight, fake_llm.max_in_flight_by_api["openai"]   # most requests open at once

An OpenAI request with `n` > 1 gets n choices, each the next scripted answer (a failure among them fails the
request). A scripted payload may also be a callable `payload(body) -> dict | str`. Usage is counted like a real
provider would, roughly (characters / 4 tokens), so cost and budget code sees realistic numbers; pass
`usage=(input_tokens, output_tokens)` to pin it. A request that nothing answers gets a 500 whose message says
so, which fails the test loudly instead of hanging.
"""

import base64
import binascii
import json
import math
import threading
import time
import uuid
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _text_of(body: dict) -> str:
    """All the prompt text in a request, for token counting."""
    parts: list[str] = []
    system = body.get("system")
    if isinstance(system, str):
        parts.append(system)
    elif isinstance(system, list):
        parts.extend(block.get("text", "") for block in system if isinstance(block, dict))
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(block.get("text", "") for block in content if isinstance(block, dict))
    return "\n".join(parts)


def audio_parts(body: dict) -> list[dict]:
    """The `input_audio` content parts of a Chat Completions request (audio sent to an audio-language model)."""
    return [part["input_audio"] for message in body.get("messages", []) if isinstance(message.get("content"), list)
            for part in message["content"] if isinstance(part, dict) and part.get("type") == "input_audio"]


def _bad_audio_part(body: dict) -> str | None:
    """What vLLM would refuse in an `input_audio` part: data that is not base64, a missing format."""
    for message in body.get("messages", []):
        for part in message.get("content") if isinstance(message.get("content"), list) else []:
            if not isinstance(part, dict) or part.get("type") != "input_audio":
                continue
            audio = part.get("input_audio")
            if not isinstance(audio, dict) or not audio.get("data") or not audio.get("format"):
                return "input_audio needs data (base64) and format"
            try:
                base64.b64decode(audio["data"], validate=True)
            except (binascii.Error, ValueError):
                return "input_audio data is not base64"
    return None


def count_tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


class FakeLLM:
    def __init__(self):
        self._lock = threading.Lock()
        self.reset()

    # --- scripting ---------------------------------------------------------------------------------------
    def reset(self) -> None:
        with self._lock:
            self._queue: deque = deque()
            self._rules: list = []
            self._fallback = None
            self._delays: deque = deque()
            self._refused: dict[str, str | None] = {}
            self._served_as: str | None = None
            self._ignore_n = False
            self.requests: list[dict] = []
            self.in_flight = 0
            self.max_in_flight = 0
            self._in_flight_by_api = {"anthropic": 0, "openai": 0}
            self.max_in_flight_by_api = {"anthropic": 0, "openai": 0}

    def reply(self, payload, *, times: int = 1, usage: tuple[int, int] | None = None) -> None:
        with self._lock:
            for _ in range(times):
                self._queue.append(("reply", payload, usage))

    def reply_when(self, predicate, payload, *, usage: tuple[int, int] | None = None) -> None:
        """Answer `payload` to every request whose JSON body satisfies `predicate` (checked before the queue)."""
        with self._lock:
            self._rules.append((predicate, payload, usage))

    def always(self, payload, *, usage: tuple[int, int] | None = None) -> None:
        with self._lock:
            self._fallback = (payload, usage)

    def fail(self, status: int = 500, *, retry_after: float | None = None, times: int = 1) -> None:
        with self._lock:
            for _ in range(times):
                self._queue.append(("fail", status, retry_after))

    def malformed(self, *, times: int = 1) -> None:
        self.reply('{"verdict": "confirm", "rationale": "unterminated', times=times)

    def refuse(self, setting: str, *, message: str | None = None) -> None:
        """Answer 400 to every request that carries `setting`, worded as the vendor words it (OpenAI's reasoning
        models on a temperature; Anthropic's API since 2026-10-21 on any sampling setting), or `message`."""
        with self._lock:
            self._refused[setting] = message

    def ignore_n(self) -> None:
        with self._lock:
            self._ignore_n = True

    def serve_as(self, model: str) -> None:
        with self._lock:
            self._served_as = model

    def slow(self, seconds: float, *, times: int = 1) -> None:
        with self._lock:
            for _ in range(times):
                self._delays.append(seconds)

    # --- serving -----------------------------------------------------------------------------------------
    def _next(self, body: dict):
        with self._lock:
            delay = self._delays.popleft() if self._delays else 0.0
            for predicate, payload, usage in self._rules:
                try:
                    matched = predicate(body)
                except Exception:  # a predicate that cannot read this request does not match it
                    matched = False
                if matched:
                    return delay, ("reply", payload, usage)
            if self._queue:
                return delay, self._queue.popleft()
            if self._fallback is not None:
                return delay, ("reply", *self._fallback)
        return delay, ("fail", 500, None, "the fake LLM server has no scripted answer for this request")

    def handle(self, api: str, path: str, body: dict):
        """-> (status, headers, response body dict)"""
        with self._lock:
            self.requests.append({"api": api, "path": path, "body": body, "model": body.get("model")})
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self._in_flight_by_api[api] += 1
            self.max_in_flight_by_api[api] = max(self.max_in_flight_by_api[api], self._in_flight_by_api[api])
        try:
            refused = self._refusal(api, body)
            if refused is not None:
                return 400, {}, refused
            count = max(1, int(body.get("n") or 1)) if api == "openai" and not self._ignore_n else 1
            delay, action = self._next(body)
            actions = [action] + [self._next(body)[1] for _ in range(count - 1)]
            if delay:
                time.sleep(delay)
            texts, output_tokens, pinned = [], 0, None
            for action in actions:
                if action[0] == "fail":
                    status, retry_after = action[1], action[2]
                    message = action[3] if len(action) > 3 else f"scripted failure {status}"
                    headers = {"retry-after": f"{retry_after:g}"} if retry_after is not None else {}
                    return status, headers, _error_body(api, status, message)
                _, payload, usage = action
                if callable(payload):
                    payload = payload(body)
                texts.append(payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False))
                output_tokens += usage[1] if usage else count_tokens(texts[-1])
                pinned = pinned or usage
            input_tokens = pinned[0] if pinned else count_tokens(_text_of(body))
            model = self._served_as or body.get("model", "fake")
            return 200, {}, _answer_body(api, model, texts, input_tokens, output_tokens)
        finally:
            with self._lock:
                self.in_flight -= 1
                self._in_flight_by_api[api] -= 1


    def _refusal(self, api: str, body: dict) -> dict | None:
        with self._lock:
            refused = [(k, m) for k, m in self._refused.items() if k in body]
        if not refused:
            return None
        setting, message = refused[0]
        if api == "anthropic":
            return {"type": "error", "error": {"type": "invalid_request_error",
                                               "message": message or f"{setting}: Extra inputs are not permitted"}}
        return {"error": {"message": message or (
            f"Unsupported value: '{setting}' does not support {body[setting]} with this model. Only the default (1) "
            "value is supported."), "type": "invalid_request_error", "param": setting, "code": "unsupported_value"}}


def _error_body(api: str, status: int, message: str) -> dict:
    kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
    if api == "anthropic":
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind, "code": None, "param": None}}


def _answer_body(api: str, model: str, texts: list[str], input_tokens: int, output_tokens: int) -> dict:
    if api == "anthropic":
        return {
            "id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": texts[0]}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        }
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
        "model": model,
        "choices": [{"index": k, "message": {"role": "assistant", "content": text}, "finish_reason": "stop",
                     "logprobs": None} for k, text in enumerate(texts)],
        "usage": {"prompt_tokens": input_tokens, "completion_tokens": output_tokens,
                  "total_tokens": input_tokens + output_tokens},
    }


def _make_handler(fake: FakeLLM):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # keep test output quiet
            pass

        def do_POST(self):
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            path = self.path.split("?", 1)[0]
            if path.endswith("/messages"):
                api = "anthropic"
            elif path.endswith("/chat/completions"):
                api = "openai"
            else:
                return self._send(404, {}, {"error": {"message": f"unknown path {path}"}})
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return self._send(400, {}, _error_body(api, 400, "request body is not JSON"))
            problem = _bad_audio_part(body) if api == "openai" else None
            if problem:
                return self._send(400, {}, _error_body(api, 400, problem))
            status, headers, payload = fake.handle(api, path, body)
            self._send(status, headers, payload)

        def _send(self, status: int, headers: dict, payload: dict):
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


class LocalServer:
    """A threaded HTTP server on 127.0.0.1 at a free port, for fakes of a provider's API (LLM, speech)."""

    path = ""  # what the SDKs' base URL adds after host:port

    def __init__(self, handler, port: int = 0):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}{self.path}"

    def start(self):
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class FakeLLMServer(LocalServer):
    def __init__(self, port: int = 0):
        self.fake = FakeLLM()
        super().__init__(_make_handler(self.fake), port)
