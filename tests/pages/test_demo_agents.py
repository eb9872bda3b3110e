"""The agent roles of the demo beyond the ground-truth and consultation stages, against the scripted demo
provider as ./scripts/demo runs it: the question writer's KMMAU questions on the demo corpus reach review,
the translator translates the demo samples, and the normalizer agent reads context-dependent spans."""

import io

import pytest

from apps.authoring.agent_questions import write_questions
from apps.authoring.capabilities import AGENT_CAPABILITIES
from apps.authoring.models import Corpus, QuestionSet, QuestionStatus
from apps.consultations.rulebooks import load_rulebooks
from apps.sources.models import SourceBenchmark
from apps.transfer import selectors
from apps.transfer.hypertranslation import selectors as translation_selectors
from apps.transfer.models import NormalizationStatus, TranslationAction

pytestmark = pytest.mark.django_db


def test_agent_written_kmmau_questions_of_the_demo_corpus_reach_review(demo_provider):
    from apps.authoring.demo import DEMO_CORPUS, DEMO_SET, seed_demo

    seed_demo(io.StringIO())  # with the demo provider the seed writes two per capability for the review queue
    question_set, corpus = QuestionSet.objects.get(name=DEMO_SET), Corpus.objects.get(name=DEMO_CORPUS)
    for capability in AGENT_CAPABILITIES:
        counts = write_questions(question_set=question_set, corpus=corpus, capability=capability)
        assert counts == {"in_review": 6, "needs_attention": 0}
    written = question_set.questions.filter(method="agent")
    assert written.count() == 16 and set(written.values_list("status", flat=True)) == {QuestionStatus.IN_REVIEW}
    for question in written:
        assert question.evidence in question.clip.clean_transcript
    assert len({q.correct_index for q in written}) == 4  # the correct option is not always in one place


def test_the_translator_translates_every_demo_sample(demo_provider, django_capture_on_commit_callbacks):
    from apps.transfer.demo import seed
    from apps.transfer.hypertranslation.services import start_translation_run

    seed(io.StringIO())
    for name in ("voicebench-demo", "openaudiobench-demo"):
        with django_capture_on_commit_callbacks(execute=True):
            run = start_translation_run(benchmark=name)
        outputs = list(translation_selectors.run_translations(run))
        assert outputs and {t.action for t in outputs} == {TranslationAction.DIRECT_TRANSLATION}
        assert all(t.transcription_ko for t in outputs)
    assert selectors.current_translations(benchmark=SourceBenchmark.objects.get(name="openaudiobench-demo")).get(
        sample__transcription__contains="switzerland").answer_ko == "독일어"


@pytest.mark.parametrize("text, reading", [
    ("우리 팀이 3:2로 이겼다.", "삼 대 이"),
    ("전화번호는 010-1234-5678입니다.", "공일공 일이삼사 오육칠팔"),
    ("문을 3번 두드렸다.", "세 번"),
])
def test_the_normalizer_agent_reads_context_dependent_spans(demo_provider, text, reading):
    from apps.transfer.normalization.services import normalize_text

    load_rulebooks()
    outcome = normalize_text(text)
    assert outcome.status == NormalizationStatus.OK, outcome.attention_reason
    assert outcome.used_agent and reading in outcome.text
