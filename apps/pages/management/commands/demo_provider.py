"""Run the scripted demo provider (apps/pages/demo_provider.py) on 127.0.0.1 until stopped."""

import signal
import threading
from pathlib import Path

from django.core.management.base import BaseCommand

from apps.agents.fake_server import FakeLLMServer
from apps.pages.demo_provider import answer


class Command(BaseCommand):
    help = "Serve recorded demo answers on 127.0.0.1 (a free port) in the Anthropic and OpenAI HTTP APIs."

    def add_arguments(self, parser):
        parser.add_argument("--url-file", type=Path, help="write the server's URL to this file once it listens")
        parser.add_argument("--port", type=int, default=0, help="listen on this port (default: a free one)")

    def handle(self, *args, url_file=None, port=0, **options):
        server = FakeLLMServer(port)
        server.fake.always(answer)
        server.start()
        if url_file:
            url_file.write_text(server.url + "\n", encoding="utf-8")
        self.stdout.write(f"demo provider listening on {server.url} (demo answers, not a real model)")
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            stop.wait()
        except KeyboardInterrupt:
            pass
        server.stop()
