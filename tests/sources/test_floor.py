"""apps/sources is a floor: transfer, consultations, speech, releases and evaluation read the source benchmarks from
it, it imports none of them, and nothing reaches the source models through transfer (no apps.get_model("transfer",
...), no "transfer.SourceSample" string). The migrations that consultations adds from now on depend on sources, not on
transfer. Historical migrations and the tests of data migrations name the old state on purpose and are left out."""

import ast
import re
from pathlib import Path

from django.conf import settings
from django.db.migrations.loader import MigrationLoader

from apps.consultations.models import AnalysisResult, DecisionQuestion
from apps.evaluation.models import EvalItem, EvaluationRun
from apps.sources.models import SourceBenchmark, SourceSample
from apps.speech.models import SampleSynthesis, SynthesisRun
from apps.transfer.models import (
    Correction,
    GroundTruthReview,
    NormalizationRun,
    NormalizedText,
    ReviewRun,
    Translation,
    TranslationRun,
)

ROOT = Path(settings.BASE_DIR)
ABOVE = ("apps.transfer", "apps.consultations", "apps.speech", "apps.releases", "apps.evaluation")
OLD_REFERENCE = re.compile(
    r"""transfer\.source(sample|benchmark)\b|get_model\(\s*["']transfer["']\s*,\s*["']Source""", re.IGNORECASE)
# The last consultations migration a deployed database applied before the move (it needed transfer's tables).
LAST_BEFORE_THE_MOVE = 7


def _modules():
    for folder in ("apps", "benchmarks", "scripts", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text()
            if "migrations" in path.parts or "tests.migrating" in text:
                continue
            yield path, text


def _imports(text: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_module_reaches_the_source_models_through_transfer():
    found = [f"{path.relative_to(ROOT)}: {m.group(0)}" for path, text in _modules()
             if path.name != "test_floor.py" for m in OLD_REFERENCE.finditer(text)]
    assert found == []


def test_the_sources_app_imports_no_app_above_it():
    for path in (ROOT / "apps/sources").rglob("*.py"):
        if "migrations" in path.parts:
            continue
        upward = {m for m in _imports(path.read_text()) if m.startswith(ABOVE)}
        assert upward == set(), path


def test_the_moved_models_keep_their_tables_and_every_foreign_key_points_at_sources():
    assert (SourceBenchmark._meta.app_label, SourceBenchmark._meta.db_table) == ("sources", "transfer_sourcebenchmark")
    assert (SourceSample._meta.app_label, SourceSample._meta.db_table) == ("sources", "transfer_sourcesample")
    fields = [AnalysisResult._meta.get_field("sample"), DecisionQuestion._meta.get_field("affected_samples"),
              DecisionQuestion._meta.get_field("example_samples"), EvalItem._meta.get_field("source_sample"),
              EvaluationRun._meta.get_field("source_benchmark"), SampleSynthesis._meta.get_field("sample"),
              SynthesisRun._meta.get_field("benchmark"), ReviewRun._meta.get_field("benchmark"),
              GroundTruthReview._meta.get_field("sample"), Correction._meta.get_field("sample"),
              TranslationRun._meta.get_field("benchmark"), Translation._meta.get_field("sample"),
              NormalizationRun._meta.get_field("benchmark"), NormalizedText._meta.get_field("sample")]
    assert {f.related_model._meta.label for f in fields} == {"sources.SourceSample", "sources.SourceBenchmark"}


def test_new_consultations_migrations_depend_on_sources_not_transfer():
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    new = [key for key in graph.nodes if key[0] == "consultations" and int(key[1][:4]) > LAST_BEFORE_THE_MOVE]
    assert new
    for key in new:
        parents = {app for app, _ in graph.node_map[key].parents}
        assert "transfer" not in parents, key
    assert any(("sources", "0001_initial") in {p.key for p in graph.node_map[key].parents} for key in new)
