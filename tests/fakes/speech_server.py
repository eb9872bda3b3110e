"""A fake OpenAI-compatible speech server on 127.0.0.1: `POST /v1/audio/speech` answers real WAV bytes and
`POST /v1/audio/transcriptions` answers JSON, so the real `openai` SDK talks to it over HTTP.

The TTS side speaks each distinct input as a pure tone whose pitch encodes it (200 Hz + 3 Hz x the input's
number), so the ASR side really "hears" what arrives: it splits the audio at its silences, finds each
piece's pitch and answers the inputs they encode, joined by spaces. A wrongly joined, truncated or
resampled-too-low file therefore gets a wrong transcript. Like a sampling TTS model, a repeated request
gives slightly different audio (a few ms longer or shorter; `vary = False` pins every piece to
`piece_seconds`). Script it:

    fake_speech.mishear(times=2)        # the next two transcriptions come back garbled
    fake_speech.hear_as("...")          # the next transcription is exactly this text
    fake_speech.fail("tts", status=429, retry_after=0.1, times=1)
    fake_speech.latency = 0.05          # every request waits this long (benchmarks)
    fake_speech.requests                # [{"api": "tts"|"asr", "body": {...}}]
"""

import email
import email.policy
import io
import json
import threading
import time
import wave
from collections import deque
from http.server import BaseHTTPRequestHandler

import numpy as np
import pytest

from apps.agents.fake_server import LocalServer

BASE_HZ, STEP_HZ = 200.0, 3.0
GARBLED = "전혀 다른 말입니다"


def tone_wav(freq: float, *, seconds: float, rate: int) -> bytes:
    t = np.arange(int(seconds * rate)) / rate
    pcm = (0.3 * np.sin(2 * np.pi * freq * t) * 32767).astype("<i2").tobytes()
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(pcm)
    return buffer.getvalue()


def heard_pitches(wav_bytes: bytes) -> list[float]:
    """The pitch of each stretch of sound between silences of 50 ms or more."""
    with wave.open(io.BytesIO(wav_bytes)) as wav:
        rate = wav.getframerate()
        samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2").astype(np.float64)
    if not samples.size or not np.any(samples):
        return []
    loud = np.flatnonzero(np.abs(samples) > 0.02 * np.max(np.abs(samples)))
    gap = int(0.05 * rate)
    breaks = np.flatnonzero(np.diff(loud) > gap)
    starts = np.concatenate([[loud[0]], loud[breaks + 1]])
    ends = np.concatenate([loud[breaks], [loud[-1]]]) + 1
    pitches = []
    for start, end in zip(starts, ends, strict=True):
        segment = samples[start:end]
        if len(segment) > gap:
            spectrum = np.abs(np.fft.rfft(segment * np.hanning(len(segment)), n=8 * len(segment)))
            pitches.append(float(np.argmax(spectrum) * rate / (8 * len(segment))))
    return pitches


class FakeSpeech:
    def __init__(self):
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with self._lock:
            self._ids: dict[str, int] = {}
            self._texts: list[str] = []
            self._tries: dict = {}
            self.vary = True
            self._transcripts: deque = deque()
            self._failures = {"tts": deque(), "asr": deque()}
            self.requests: list[dict] = []
            self.latency = 0.0
            self.piece_seconds = 0.6
            self.rate = 24000
            self.in_flight = {"tts": 0, "asr": 0}
            self.max_in_flight = {"tts": 0, "asr": 0}

    def mishear(self, *, times: int = 1) -> None:
        with self._lock:
            self._transcripts.extend([GARBLED] * times)

    def hear_as(self, text: str, *, times: int = 1) -> None:
        with self._lock:
            self._transcripts.extend([text] * times)

    def fail(self, api: str, *, status: int = 500, retry_after: float | None = None, times: int = 1) -> None:
        with self._lock:
            self._failures[api].extend([(status, retry_after)] * times)

    def count(self, api: str) -> int:
        return sum(1 for r in self.requests if r["api"] == api)

    def _id_of(self, text: str) -> int:
        with self._lock:
            if text not in self._ids:
                self._ids[text] = len(self._texts)
                self._texts.append(text)
            return self._ids[text]

    def _length(self, body: dict) -> float:
        """Like a sampling TTS model, each request gives other audio: a few ms longer or shorter than the last
        request for the same input (distinct for 21 requests in a row)."""
        with self._lock:
            tries = self._tries[body["input"]] = self._tries.get(body["input"], -1) + 1
        return self.piece_seconds + (tries % 21 - 10) / 1000 if self.vary else self.piece_seconds

    def _text_at(self, pitch: float) -> str:
        index = round((pitch - BASE_HZ) / STEP_HZ)
        with self._lock:
            return self._texts[index] if 0 <= index < len(self._texts) else "?"

    def handle(self, api: str, body: dict, audio: bytes = b""):
        """-> (status, headers, content type, bytes)"""
        with self._lock:
            self.requests.append({"api": api, "body": body})
            self.in_flight[api] += 1
            self.max_in_flight[api] = max(self.max_in_flight[api], self.in_flight[api])
            failure = self._failures[api].popleft() if self._failures[api] else None
            latency = self.latency
        try:
            if latency:
                time.sleep(latency)
            if failure:
                status, retry_after = failure
                headers = {"retry-after": f"{retry_after:g}"} if retry_after is not None else {}
                error = {"error": {"message": f"scripted failure {status}", "type": "api_error", "code": None, "param": None}}
                return status, headers, "application/json", json.dumps(error).encode()
            if api == "tts":
                freq = BASE_HZ + STEP_HZ * self._id_of(body["input"])
                return 200, {}, "audio/wav", tone_wav(freq, seconds=self._length(body), rate=self.rate)
            with self._lock:
                scripted = self._transcripts.popleft() if self._transcripts else None
            text = scripted if scripted is not None else " ".join(self._text_at(p) for p in heard_pitches(audio))
            return 200, {}, "application/json", json.dumps({"text": text}, ensure_ascii=False).encode()
        finally:
            with self._lock:
                self.in_flight[api] -= 1


def _multipart(content_type: str, raw: bytes) -> tuple[dict, bytes]:
    message = email.message_from_bytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw,
                                       policy=email.policy.HTTP)
    fields, audio = {}, b""
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if part.get_filename():
            audio = part.get_payload(decode=True)
        else:
            fields[name] = part.get_content().strip()
    return fields, audio


def _make_handler(fake: FakeSpeech):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            path = self.path.split("?", 1)[0]
            if path.endswith("/audio/speech"):
                status, headers, ctype, data = fake.handle("tts", json.loads(raw or b"{}"))
            elif path.endswith("/audio/transcriptions"):
                fields, audio = _multipart(self.headers["content-type"], raw)
                status, headers, ctype, data = fake.handle("asr", fields, audio)
            else:
                status, headers, ctype, data = 404, {}, "application/json", b'{"error": {"message": "no such path"}}'
            self.send_response(status)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


class FakeSpeechServer(LocalServer):
    path = "/v1"

    def __init__(self):
        self.fake = FakeSpeech()
        super().__init__(_make_handler(self.fake))


def speech_settings(url: str) -> tuple[dict, dict]:
    tts = {"backend": "openai", "base_url": url, "api_key": "test-tts-key", "model": "fake-tts", "voice": None,
           "response_format": "wav", "extra_body": {}, "send_reference": False, "seed_field": "", "timeout": 10.0,
           "concurrency": 4, "usd_per_million_chars": 15.0}
    asr = {"backend": "openai", "base_url": url, "api_key": "test-asr-key", "model": "fake-asr", "language": "ko",
           "timeout": 10.0, "concurrency": 4, "usd_per_minute": 0.006}
    return tts, asr


@pytest.fixture(scope="session")
def fake_speech_server():
    server = FakeSpeechServer().start()
    yield server
    server.stop()


@pytest.fixture
def fake_speech(fake_speech_server, settings):
    """The fake speech server, reset, with the TTS and ASR backends pointed at it and short backoff."""
    fake_speech_server.fake.reset()
    settings.SPEECH_TTS, settings.SPEECH_ASR = speech_settings(fake_speech_server.url)
    settings.SPEECH_BACKOFF_BASE_SECONDS = 0.01
    settings.SPEECH_BACKOFF_MAX_SECONDS = 0.05
    fake_speech_server.fake.url = fake_speech_server.url
    yield fake_speech_server.fake
    fake_speech_server.fake.reset()
