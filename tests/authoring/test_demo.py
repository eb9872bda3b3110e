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
