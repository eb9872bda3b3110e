"""Offline demo data: a few English source samples in two subsets (no provider needed)."""

import csv
import io
import json
from pathlib import Path

from apps.transfer.services import import_benchmark

SD_QA = [
    {"prompt": "What is the capital city of Australia?", "reference": "Canberra"},
    {"prompt": "How many legs does a spider have?", "reference": "eight"},
    {"prompt": "Who wrote the novel Pride and Prejudice?", "reference": "Jane Austen"},
    {"prompt": "What is the chemical symbol for gold?", "reference": "Au"},
]

WEB_QUESTIONS = [
    ("wq_0001.wav", "what language do they speak in switzerland?", "['German']"),
    ("wq_0002.wav", "what currency does japan use?", "['Japanese yen', 'Yen']"),
    ("wq_0003.wav", "who is the author of the hobbit?", "['J. R. R. Tolkien']"),
]


def seed(stdout) -> None:
    jsonl = "\n".join(json.dumps(row) for row in SD_QA).encode()
    # Demo benchmarks have their own names, so a real VoiceBench or OpenAudioBench import never meets them.
    result = import_benchmark(fmt="voicebench", subset="sd-qa", path=Path("sd-qa-demo.jsonl"), data=jsonl,
                              benchmark="voicebench-demo")
    stdout.write(f"  transfer: voicebench-demo/sd-qa {result.created} new, {result.unchanged} already there")
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["audio_filename", "question", "answers"])
    writer.writerows(WEB_QUESTIONS)
    result = import_benchmark(fmt="openaudiobench", subset="web_questions", path=Path("web_questions-demo.csv"),
                              data=buffer.getvalue().encode(), benchmark="openaudiobench-demo")
    stdout.write(f"  transfer: openaudiobench-demo/web_questions {result.created} new, {result.unchanged} already there")
