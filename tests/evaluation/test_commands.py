"""The commands: import_responses makes the model and the run and names every bad row; collect_responses asks
the model's endpoint (the fake server) and resumes; evaluate_responses scores and prints the subset scores."""

import json

import pytest
from django.core.management import CommandError, call_command

from apps.evaluation.models import EvalItem, EvaluationRun


def _write(path, rows):
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


@pytest.mark.django_db
def test_import_then_evaluate_from_the_command_line(voicebench, admin, tmp_path, fake_llm, settings, capsys):
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "judge": ("openai", "gpt-4o-mini")}
    from apps.sources.models import SourceSample

    rows = [{"id": f"{s.subset}/{s.source_id}", "response": "Canberra, I think. B"} for s in SourceSample.objects.all()]
    call_command("import_responses", str(_write(tmp_path / "r.jsonl", rows)), model="Qwen2.5-Omni", model_version="7B",
                 benchmark="source:voicebench")
    run = EvaluationRun.objects.get()
    assert "Imported 5 responses into run" in capsys.readouterr().out

    fake_llm.always({"answer": "No"})
    fake_llm.reply_when(lambda b: "scale of 1 to 5" in str(b), {"score": 2})
    call_command("evaluate_responses", run=run.pk)

    out = capsys.readouterr().out
    assert "Evaluated" in out
    assert "* sori       commoneval       judge      40.0  n=1" in out
    assert "* sori       sd-qa            combined   16.7  n=3" in out  # (rule 33.3 + judge 0) / 2, as VoiceBench
    assert "  sori       sd-qa            judge       0.0  n=3" in out


@pytest.mark.django_db
def test_import_names_each_bad_row_and_stores_nothing(english_run, admin, tmp_path):
    with pytest.raises(CommandError) as refused:
        call_command("import_responses", str(_write(tmp_path / "bad.jsonl", [{"id": "x", "response": "y"}])), run=english_run.pk)

    assert "bad.jsonl line 1: id: 'x' is not an item of voicebench" in str(refused.value)
    assert not EvalItem.objects.filter(run=english_run, response__isnull=False).exists()


@pytest.mark.django_db
def test_collect_asks_the_endpoint_and_resumes(english_run, fake_endpoint, audio_dir, admin, capsys):
    fake_endpoint.always("an answer")
    call_command("collect_responses", run=english_run.pk, limit=3)
    assert "3 asked, 0 from cache, 2 without a response" in capsys.readouterr().out

    call_command("collect_responses", run=english_run.pk)

    assert "2 asked, 0 from cache, 0 without a response" in capsys.readouterr().out
    assert len(fake_endpoint.requests) == 5


@pytest.mark.django_db
def test_a_command_without_a_run_says_what_to_give(admin):
    with pytest.raises(CommandError, match="give --run ID, or --model NAME and --benchmark"):
        call_command("collect_responses")
    with pytest.raises(CommandError, match="use release:NAME@VERSION or source:NAME"):
        call_command("collect_responses", model="m", benchmark="kvoicebench")
