"""The release page updates itself when its build finishes (issue 20: it kept saying "Building" without
Download or Publish until reloaded): its progress poll asks for a reload, which htmx does on HX-Refresh."""

import pytest

from apps.jobs.services import run_job
from apps.releases.services import create_release

pytestmark = pytest.mark.django_db


def test_the_building_page_reloads_itself_once_the_build_has_finished(rated_test, admin, client_for):
    release = create_release(acting_user=admin, kind="mos", source_id=rated_test.pk, name="komos", version="1.0.0",
                             license="CC-BY-4.0", sources=[{"name": "Sori listening test", "license": "CC-BY-4.0"}])
    client = client_for(admin)
    page = client.get(f"/releases/{release.pk}/").content.decode()
    poll = f"/jobs/{release.job_id}/progress/?reload=1"
    assert f'hx-get="{poll}"' in page and "publish-release" not in page

    waiting = client.get(poll, HTTP_HX_REQUEST="true")
    assert "HX-Refresh" not in waiting

    run_job(release.job_id)
    finished = client.get(poll, HTTP_HX_REQUEST="true")
    assert finished["HX-Refresh"] == "true"
    assert "publish-release" in client.get(f"/releases/{release.pk}/").content.decode()
    # Other pages' progress polls are not reloaded.
    assert "HX-Refresh" not in client.get(f"/jobs/{release.job_id}/progress/", HTTP_HX_REQUEST="true")
