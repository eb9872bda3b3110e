"""A fake Hugging Face Hub on 127.0.0.1 that speaks the part of its HTTP API `huggingface_hub.HfApi` uses
to create a dataset repository and commit a folder of small files (create, validate-yaml, preupload with
every file "regular", commit as NDJSON with base64 content). It keeps what was committed, so a test can
compare bytes, and refuses requests without a bearer token as the Hub does."""

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml


class FakeHub:
    def __init__(self):
        self.repos: dict[str, dict[str, bytes]] = {}
        self.commits: list[dict] = []
        self.requests: list[tuple[str, str]] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                hub.requests.append(("POST", self.path))
                if not self.headers.get("Authorization", "").startswith("Bearer hf_"):
                    return self._send(401, {"error": "Invalid credentials in Authorization header"})
                status, out = hub.answer(self.path, body)
                self._send(status, out)

            def _send(self, status, out):
                data = json.dumps(out).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def answer(self, path: str, body: bytes):
        if path == "/api/repos/create":
            data = json.loads(body)
            repo = f"{data['organization']}/{data['name']}"
            self.repos.setdefault(repo, {})
            return 200, {"url": f"{self.url}/datasets/{repo}"}
        if path == "/api/validate-yaml":
            content = json.loads(body)["content"]
            try:
                head = content.split("---\n", 2)[1] if content.startswith("---\n") else ""
                meta = yaml.safe_load(head) or {}
            except yaml.YAMLError as exc:
                return 400, {"errors": [{"message": str(exc)}]}
            missing = [k for k in ("license", "configs") if k not in meta]
            return (400, {"errors": [{"message": f"missing {k}"} for k in missing]}) if missing else (200, {"errors": [], "warnings": []})
        repo = path.removeprefix("/api/datasets/").rsplit("/", 2)[0]
        if repo not in self.repos:
            return 404, {"error": f"Repository {repo} not found"}
        if "/preupload/" in path:
            files = json.loads(body)["files"]
            return 200, {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files]}
        if "/commit/" in path:
            lines = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
            header = next(line["value"] for line in lines if line["key"] == "header")
            files = {line["value"]["path"]: base64.b64decode(line["value"]["content"]) for line in lines if line["key"] == "file"}
            self.repos[repo].update(files)
            self.commits.append({"repo": repo, "summary": header["summary"], "files": sorted(files)})
            oid = f"{len(self.commits):040x}"
            return 200, {"commitUrl": f"{self.url}/datasets/{repo}/commit/{oid}", "commitOid": oid}
        return 404, {"error": "not found"}


@pytest.fixture
def fake_hub(settings, monkeypatch):
    hub = FakeHub()
    thread = threading.Thread(target=hub.server.serve_forever, daemon=True)
    thread.start()
    settings.HF_ENDPOINT = hub.url
    settings.HF_TOKEN = None
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    yield hub
    hub.server.shutdown()
    hub.server.server_close()
