import pytest

from apps.consultations.rulebooks import get_version, load_rulebooks
from apps.transfer.normalizer import normalizer_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_expert_reads_a_text_on_the_normalizer_page(expert, page, login, live_server):
    load_rulebooks()
    # kiwipiepy loads its model on first use (seconds on a busy machine); the live server shares this process.
    normalizer_for(get_version("ko-normalization", 2)).normalize("3개")
    login(page, expert)
    page.click("nav >> text=Spoken QA")  # the menu groups the expert's pages under their workflow
    page.click("nav >> text=Normalization")
    page.fill("#id_try-text", "20번째 손님은 12,345원을 냈다.")
    page.uncheck("#id_try-use_agent")
    page.click("button:text-is('Normalize')")
    assert page.inner_text("[data-testid=reading]") == "스무 번째 손님은 만 이천삼백사십오 원을 냈다."
    assert "nm-counter-numerals" in page.inner_text("main")
