"""Consultation fixtures: the repository rulebooks loaded, a handful of source samples, and helpers that
script the fake provider per agent step (the prompts say which step a request is)."""

import json

import pytest


@pytest.fixture(autouse=True)
def _one_analyst_at_a_time(settings):
    """Worker threads have their own database connections and cannot see a test's uncommitted rows; tests
    that commit (transaction=True) switch parallel analysis back on."""
    settings.CONSULTATION_ANALYSIS_WORKERS = 1


@pytest.fixture
def rulebooks(db):
    from apps.consultations.rulebooks import load_rulebooks

    load_rulebooks()
    from apps.consultations.models import Rulebook

    return {b.slug: b for b in Rulebook.objects.all()}


SAMPLES = [
    # (subset, task type, source id, transcription, answer)
    ("mmsu", "multiple_choice", "mmsu-1", "Which rock forms from cooled magma? A. Igneous B. Sedimentary", "A"),
    ("web_questions", "short_answer", "wq-1", "What is the capital of Kazakhstan?", "Astana"),
    ("web_questions", "short_answer", "wq-2", "Who is the current president of France?", "Emmanuel Macron"),
    ("ifeval", "instruction_following", "if-1", "Describe Seoul. Write your whole answer in lowercase.", ""),
]


@pytest.fixture
def samples(db):
    from apps.sources.models import SourceBenchmark, SourceSample

    bench, _ = SourceBenchmark.objects.get_or_create(name="voicebench", defaults={"format": "voicebench"})
    return [
        SourceSample.objects.create(
            benchmark=bench, subset=subset, task_type=task, source_id=sid, transcription=text, answer=answer,
            raw={"prompt": text}, line_number=i,
        )
        for i, (subset, task, sid, text, answer) in enumerate(SAMPLES, start=1)
    ]


def body_text(body: dict) -> str:
    return json.dumps(body, ensure_ascii=False)


def is_analysis(body, *, version: int | None = None, containing: str = "") -> bool:
    text = body_text(body)
    return (
        "You are the analyst of a rulebook consultation" in text
        and (version is None or f"version {version} (" in text)
        and containing in text
    )


def is_question_writing(body) -> bool:
    return "You write decision questions" in body_text(body)


def is_codification(body) -> bool:
    return "You codify an expert" in body_text(body)


@pytest.fixture
def make_question(rulebooks, samples, admin):
    """A round on the hypertranslation rulebook with one question on the two web-questions samples (written
    directly through the service, as a test fixture)."""
    from apps.consultations import services
    from apps.consultations.models import RoundStatus

    def make(*, required_experts: int = 1, lead_expert=None, round=None):
        if round is None:
            round = services.create_round(rulebook=rulebooks["ko-hypertranslation"], acting_user=admin, lead_expert=lead_expert)
            services.set_round_status(round=round, status=RoundStatus.ANSWERING)
        return services.create_question(
            round=round, title="Time-sensitive answers", decision_needed="What to do with answers that change?",
            options=[{"key": "A", "label": "Keep", "effect": "kept"}, {"key": "B", "label": "Add a year", "effect": "rewritten"},
                     {"key": "C", "label": "Delete", "effect": "removed"}],
            recommendation="B", recommendation_why="one correct answer", samples=samples[1:3], rules_touched=["ht-aliases"],
            required_experts=required_experts,
        )

    return make
