"""One grammar names a benchmark for the run form, the API and the commands: kind, a colon, then an id (digits
only) or a name, a release's with an optional @version."""

import pytest
from django.core.management.base import CommandError

from apps.core.errors import InvalidInput, NotFound
from apps.evaluation.management.commands._common import benchmark
from apps.evaluation.references import BenchmarkRef, find_benchmark, parse_benchmark
from tests.evaluation.boards import release, source_benchmark


@pytest.mark.parametrize(("text", "ref"), [
    ("release:7", BenchmarkRef("release", pk=7)),
    ("source:12", BenchmarkRef("source", pk=12)),
    ("release:kvoicebench", BenchmarkRef("release", name="kvoicebench")),
    ("release:kvoicebench@1.2.0", BenchmarkRef("release", name="kvoicebench", version="1.2.0")),
    ("source:voicebench", BenchmarkRef("source", name="voicebench")),
    ("source:open audio bench", BenchmarkRef("source", name="open audio bench")),
    ("release:7b@3", BenchmarkRef("release", name="7b", version="3")),
])
def test_it_reads_an_id_or_a_name(text, ref):
    assert parse_benchmark(text) == ref
    assert str(ref) == text


@pytest.mark.parametrize("text", [
    "", "release", "release:", "voicebench", "run:3", "Release:3", "release: 3", "source:voicebench@1",
    "release:a@b@c", "release:@1", "release:1234567890123456789", " release:3", "release:kvoicebench@",
])
def test_it_refuses_anything_else(text):
    with pytest.raises(InvalidInput):
        parse_benchmark(text)


@pytest.mark.django_db
def test_it_finds_what_the_reference_names(admin):
    vb = source_benchmark("voicebench", "voicebench")
    old, new = release("kvoicebench", "spoken-qa", admin, "1.0.0"), release("kvoicebench", "spoken-qa", admin, "2.0.0")

    assert find_benchmark(parse_benchmark(f"source:{vb.pk}")) == (None, vb)
    assert find_benchmark(parse_benchmark("source:voicebench")) == (None, vb)
    assert find_benchmark(parse_benchmark(f"release:{old.pk}")) == (old, None)
    assert find_benchmark(parse_benchmark("release:kvoicebench@1.0.0")) == (old, None)
    assert find_benchmark(parse_benchmark("release:kvoicebench")) == (new, None)  # the newest
    with pytest.raises(NotFound):
        find_benchmark(parse_benchmark("release:kvoicebench@9"))
    with pytest.raises(NotFound):
        find_benchmark(parse_benchmark(f"source:{vb.pk + 1000}"))


@pytest.mark.django_db
def test_the_command_form_and_api_read_the_same_grammar(admin, client, api_client, qwen):
    vb = source_benchmark("voicebench", "voicebench")
    assert benchmark(f"source:{vb.pk}") == (None, vb)  # the command now also takes an id
    with pytest.raises(CommandError, match="use release:NAME@VERSION or source:NAME"):
        benchmark("voicebench")

    api_client.force_authenticate(admin)
    by_name = api_client.post("/api/evaluation/runs/", {"model": qwen.pk, "benchmark": "source:nowhere"}, format="json")
    assert by_name.status_code == 404 and "no source benchmark source:nowhere" in by_name.json()["detail"]
    malformed = api_client.post("/api/evaluation/runs/", {"model": qwen.pk, "benchmark": "source:a@b"}, format="json")
    assert malformed.status_code == 400
