"""The demo as a newcomer meets it: seed_demo on SQLite (the demo's embedded database, in processes of their
own, as ./scripts/demo runs it, with the scripted demo provider and the demo ASR) leaves a leaderboard with three
scripted models of clearly different quality, each with English and Korean runs scored through the real
evaluation path, so Table 1 has a mean in every cell, Table 5 English and Korean side by side with their gaps,
Table 6 every KMMAU capability, the rank agreement of each spoken-QA benchmark with KMMAU is computed over the three
models, and a paired comparison answers. A second seed (a restart) changes nothing and asks the judge nothing; the seed
prints what it made and none of the job runner's or the HTTP client's log lines."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from apps.authoring.capabilities import SPECS

ROOT = Path(__file__).resolve().parents[2]

SEED = """
import os
import django
from apps.agents.fake_server import FakeLLMServer
from apps.pages.demo_provider import answer

server = FakeLLMServer()
server.fake.always(answer)
server.start()
os.environ.update(ANTHROPIC_API_KEY="demo", ANTHROPIC_BASE_URL=server.url, OPENAI_API_KEY="demo",
                  OPENAI_BASE_URL=server.url + "/v1")
django.setup()
from django.core.management import call_command

if os.environ.get("MIGRATE"):
    call_command("migrate", verbosity=0)
call_command("seed_demo")
"""

CHECK = """
import json
import django
django.setup()
from django.test import Client
from django.urls import reverse
from apps.accounts.models import User
from apps.agents.models import AgentCall
from apps.evaluation.leaderboard import selectors as leaderboard
from apps.evaluation.models import EvaluationRun, ItemScore
from apps.releases.models import Release
from apps.sources.models import SourceSample

board = leaderboard.leaderboard()
client = Client()
client.force_login(User.objects.get(username="admin"))
page = client.get(reverse("evaluation:leaderboard"), HTTP_HOST="localhost")
runs = list(EvaluationRun.objects.select_related("model"))
strong, middling = (EvaluationRun.objects.get(model__name=n, benchmark_name="voicebench-demo") for n in
                    ("Demo strong", "Demo middling"))
print(json.dumps({
    "models": [str(m) for m in board.models],
    "demo_models": [str(m) for m in board.demo_models],
    "table1": {r.label: [None if c.score is None else round(c.score, 2) for c in r.cells] for r in board.table1},
    "missing": sorted({s for r in board.table1 for c in r.cells for s in c.missing}),
    "table5": {p.label: [[row.key, [c.score is not None for c in row.gap]] for row in p.rows]
               for p in board.table5},
    "gaps": len(board.gaps),
    "korean": sorted({(str(r.model), r.benchmark_name) for r in runs if r.language == "ko"}),
    "judges": sorted({r.judge_model for r in runs if r.family == "spoken-qa"}),
    "statuses": sorted({r.status for r in runs}),
    "compare": leaderboard.compare(strong, middling, resamples=200)["overall"]["n"],
    "table6": board.table6 and {row.key: [c.score for c in row.cells] for row in board.table6.rows},
    "leaderboard": [page.status_code, 'id="kmmau-empty"' in page.content.decode(), "Number of Speakers" in page.content.decode()],
    "agreements": [(a["spoken"], a["audio"], a.get("n"), a.get("spearman"), a.get("refused")) for a in board.agreements],
    "counts": [len(runs), ItemScore.objects.count(), AgentCall.objects.count(), Release.objects.count(),
               SourceSample.objects.count()],
}))
"""


def _run(tmp_path, code: str, **extra) -> subprocess.CompletedProcess:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code), encoding="utf-8")
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'demo.sqlite3'}", "SORI_DATA_DIR": str(tmp_path),
           "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(ROOT), "DEBUG": "1",
           "SORI_DEMO_PROVIDER": "1", "SORI_ASR_BACKEND": "demo", **extra}
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "SORI_JOB_RUNNER", "SORI_ASR_MODEL"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_the_seeded_demo_leaderboard_shows_three_models_in_english_and_korean_and_a_restart_changes_nothing(tmp_path):
    first = _run(tmp_path, SEED, MIGRATE="1")
    before = json.loads(_run(tmp_path, CHECK).stdout)
    again = _run(tmp_path, SEED)
    after = json.loads(_run(tmp_path, CHECK).stdout)

    names = ["Demo middling scripted", "Demo strong scripted", "Demo weak scripted"]
    assert before["models"] == names and before["demo_models"] == names
    # Table 1: every benchmark, English and Korean, has a mean for every model (no "no mean"), and the models
    # rank strong > middling > weak on each.
    assert set(before["table1"]) == {"VoiceBench", "OpenAudioBench", "KVoiceBench", "KOpenAudioBench", "KMMAU"}
    assert before["missing"] == []
    for label, (middling, strong, weak) in before["table1"].items():
        assert strong > middling > weak, (label, before["table1"][label])
    # Table 5: every subset of both benchmarks, with a gap for every model.
    assert [k for k, _ in before["table5"]["VoiceBench"]] == ["openbookqa", "mmsu", "bbh", "sd-qa", "alpacaeval",
                                                             "commoneval", "wildvoice", "ifeval", "advbench"]
    assert all(all(gaps) for pair in before["table5"].values() for _, gaps in pair)
    assert before["gaps"] == 3 * (9 + 4)
    # Table 6: all nine KMMAU capabilities scored for the three models, strong ahead of middling in each.
    assert list(before["table6"]) == list(SPECS)
    for capability, (middling, strong, weak) in before["table6"].items():
        assert None not in (middling, strong, weak) and strong > middling >= weak, (capability, middling, strong, weak)
    assert before["leaderboard"] == [200, False, True]  # the admin's leaderboard: KMMAU shown, no empty state
    # The rank agreement of each spoken-QA benchmark with KMMAU, over the three models (none refused).
    assert sorted(a[:3] for a in before["agreements"]) == [
        [b, "kmmau-demo", 3] for b in ("kopenaudiobench-demo", "kvoicebench-demo", "openaudiobench-demo", "voicebench-demo")]
    assert all(a[3] is not None and a[4] is None for a in before["agreements"])
    # A Korean run per model on each Korean release, each scored by the real job with the demo provider judging.
    assert before["korean"] == sorted([n, b] for n in names
                                      for b in ("kmmau-demo", "kopenaudiobench-demo", "kvoicebench-demo"))
    assert before["statuses"] == ["evaluated"] and len(before["judges"]) == 1 and before["judges"][0]
    assert before["compare"] == 20  # strong against middling on voicebench-demo's 20 items, paired
    # The restart: nothing new, no judge call, and the same board.
    assert after == before
    assert "29 new samples" in first.stdout and "0 new samples, 29 already there" in again.stdout
    for done in (first, again):
        printed = done.stdout + done.stderr
        assert "neither queued nor lost" not in printed and "HTTP Request" not in printed, printed[-2000:]
