"""Fixtures of the accessibility and keyboard tests: the participant pages the accessibility and keyboard tests visit, built with each app's own fixtures: the
listener's rating page, the annotator's verification and KMMAU review pages and KMMAU author page, the
expert's answer page, and each role's home page."""

import pytest

from tests.authoring.conftest import corpus_folder, kss_corpus, make_agent_question, question_set  # noqa: F401
from tests.consultations.conftest import make_question, rulebooks, samples  # noqa: F401
from tests.listening.conftest import make_test, write_manifest  # noqa: F401
from tests.verification.conftest import hpsu, make_project  # noqa: F401

LANGUAGES = ["en", "ko"]
# A phone (KOMOS-style listeners rate on whatever they have) and a desktop screen.
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def context_for(browser, *, language: str, viewport: dict):
    """A browser context that asks for `language` (Accept-Language and Django's language cookie, so it holds
    whether the site follows the browser or the cookie) at `viewport`; a phone-sized one is a touch device."""
    phone = viewport["width"] < 600
    context = browser.new_context(viewport=viewport, locale=language, is_mobile=phone, has_touch=phone,
                                  extra_http_headers={"Accept-Language": language})
    return context


def set_language_cookie(context, base_url: str, language: str) -> None:
    context.add_cookies([{"name": "django_language", "value": language, "url": base_url}])


def speaking(user, language: str):
    """`user`, who now reads Sori in `language`: a signed-in person's own setting outranks the cookie and the
    browser (the test cast reads English unless told)."""
    user.language = language
    user.save(update_fields=["language"])
    return user


@pytest.fixture
def participant_pages(make_test, make_project, question_set, kss_corpus, make_question,  # noqa: F811
                      listener, annotator, expert):
    """[(name, user, path, first_screen)] for every task page and home page, each with one item waiting;
    first_screen: what must fit the first phone screen (the audio, the question and every answer control)."""
    from apps.listening.services import record_consent

    test = make_test(2, seconds=0.6)
    record_consent(test=test, acting_user=listener)
    project = make_project(2)
    for i, clip in enumerate(kss_corpus.clips.order_by("id")[:2]):
        make_agent_question(question_set, clip, dedup_key=f"fact-{i}")
    question = make_question()
    return [
        ("listener home", listener, "/", []),
        ("rating", listener, f"/listening/tests/{test.pk}/rate/", ["#clip-audio", "h1", "button[data-score]"]),
        ("annotator home", annotator, "/", []),
        ("verification review", annotator, f"/verification/projects/{project.pk}/review/",
         [".verification-audio", ".verification-question", "#approve", "#reject"]),
        ("kmmau review", annotator, f"/authoring/sets/{question_set.pk}/review/",
         ["#clip-audio", ".review-question__text", "#approve", "#edit-toggle", "#reject"]),
        ("kmmau author", annotator, f"/authoring/sets/{question_set.pk}/author/?capability=general_counting",
         ["#clip-audio", "#q-text", "#gated-form input[name^=option]", "#gated-form label:has(> input[name=correct_index])",
          "#gated-form button[type=submit]"]),
        ("expert home", expert, "/", []),
        ("expert answer", expert, f"/consultations/questions/{question.pk}/", []),
    ]
