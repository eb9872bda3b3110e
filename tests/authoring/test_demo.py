"""The demo: a KSS-like corpus read by espeak-ng and its rule-based questions; running it again adds nothing."""

import io

from apps.authoring.demo import DEMO_CORPUS, DEMO_SET, SENTENCES, seed_demo
from apps.authoring.models import Corpus, Question


def test_the_demo_seeds_a_kss_like_corpus_and_questions_once(db):
    out = io.StringIO()
    seed_demo(out)
    corpus = Corpus.objects.get(name=DEMO_CORPUS)
    assert corpus.clips.count() == len(SENTENCES) and corpus.license == "CC0-1.0"
    made = Question.objects.filter(question_set__name=DEMO_SET).count()
    assert made >= len(SENTENCES)  # transcript questions; one voice, so no gender or speaker-count question
    seed_demo(out)
    assert Question.objects.filter(question_set__name=DEMO_SET).count() == made
    assert "+0 rule-based questions" in out.getvalue()


def test_with_the_demo_provider_agent_written_questions_wait_for_an_annotators_review(db, fake_llm, settings):
    """A fresh demo's KMMAU review queue has work: the question writer (the scripted demo provider, through the
    real agent path) writes questions for each capability it covers, and annotator1 is handed one."""
    from apps.accounts.demo import seed_demo_accounts
    from apps.accounts.models import User
    from apps.authoring.capabilities import AGENT_CAPABILITIES
    from apps.authoring.models import QuestionSet
    from apps.authoring.services import next_review
    from apps.pages import demo_provider

    settings.SORI_DEMO_PROVIDER = True
    fake_llm.always(demo_provider.answer)
    seed_demo_accounts()
    out = io.StringIO()
    seed_demo(out)

    waiting = Question.objects.filter(question_set__name=DEMO_SET, method="agent", status="in_review")
    assert {q.capability for q in waiting} == set(AGENT_CAPABILITIES)
    assert f"+{waiting.count()} agent-written ones waiting for review" in out.getvalue()
    question = next_review(question_set=QuestionSet.objects.get(name=DEMO_SET),
                           acting_user=User.objects.get(username="annotator1"))
    assert question is not None and question.method == "agent"
    # Every capability has accepted questions, each accepted as the workflow accepts it: two approvals of an
    # agent-written one, a matching blind answer to a manual one, each after the clip was played to its end.
    from apps.audio.models import AudioPlayback
    from apps.authoring.capabilities import SPECS
    from apps.authoring.models import BlindAnswer, Review

    accepted = Question.objects.filter(question_set__name=DEMO_SET, status="accepted")
    assert {q.capability for q in accepted} == set(SPECS)
    for question in accepted.filter(method="agent"):
        assert sorted(Review.objects.filter(question=question).values_list("reviewer__username", "decision")) == [
            ("annotator2", "approve"), ("annotator3", "approve")]
    manual = accepted.filter(method="manual")
    assert manual.count() == 4 and {q.author.username for q in manual} == {"annotator3"}
    for question in manual:
        blind = BlindAnswer.objects.get(question=question)
        assert blind.matches and blind.answerer.username == "annotator2"
    for question in accepted.exclude(method__in=("metadata", "transcript")):
        assert AudioPlayback.objects.filter(asset=question.clip.audio, user__username="annotator2").exists()
    assert "+8 agent-written or manual ones reviewed or answered blind" in out.getvalue()
    asked, kept = len(fake_llm.requests), sorted(accepted.values_list("pk", flat=True))
    seed_demo(io.StringIO())
    assert len(fake_llm.requests) == asked  # a restart writes nothing again
    assert sorted(accepted.values_list("pk", flat=True)) == kept
