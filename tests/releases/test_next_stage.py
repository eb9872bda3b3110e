"""A built spoken-QA release leads to the last stage (issue 34): its page links to the evaluation runs with the
new run's benchmark chosen; the evaluation page takes only one of its own choices from the link."""

import re

import pytest

pytestmark = pytest.mark.django_db


def _selected(html: str) -> list[str]:
    select = html.split('id="id_benchmark"', 1)[1].split("</select>", 1)[0]
    return [v for v in re.findall(r'<option value="([^"]*)" selected>', select) if v]


def test_a_built_release_links_to_evaluation_with_itself_chosen(benchmark, build, admin, client_for):
    from apps.evaluation.services import create_model

    release = build("spoken-qa", benchmark, name="kvb")
    create_model(name="Qwen2.5-Omni", acting_user=admin)
    client = client_for(admin)
    page = client.get(f"/releases/{release.pk}/").content.decode()
    assert f'href="/evaluation/runs/?benchmark=release:{release.pk}#new-run">Next: evaluate a model on kvb 1.0.0 →' in page

    assert _selected(client.get(f"/evaluation/runs/?benchmark=release:{release.pk}").content.decode()) == [f"release:{release.pk}"]
    assert _selected(client.get(f"/evaluation/runs/?benchmark=source:{benchmark.pk}").content.decode()) == [f"source:{benchmark.pk}"]
    for wrong in (f"release:{release.pk + 100}", "release:", "anything"):
        assert _selected(client.get(f"/evaluation/runs/?benchmark={wrong}").content.decode()) == [], wrong


def test_a_mos_release_has_no_evaluation_link(rated_test, build, admin, client_for):
    release = build("mos", rated_test, name="komos", license="CC-BY-4.0",
                    sources=[{"name": "Sori listening test", "license": "CC-BY-4.0"}])
    assert "Next: evaluate" not in client_for(admin).get(f"/releases/{release.pk}/").content.decode()
