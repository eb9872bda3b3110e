"""Demo data: a published MOS release of the demo listening test, so the release pages have something to
show. Idempotent."""

from apps.accounts.models import User
from apps.jobs.services import run_here
from apps.listening.demo import DEMO_NAME as TEST_NAME
from apps.listening.models import ListeningTest
from apps.releases.models import Release
from apps.releases.services import create_release, publish_release

DEMO_NAME = "komos-demo"


def seed(stdout=None):
    existing = Release.objects.filter(name=DEMO_NAME).first()
    admin = User.objects.filter(username="admin").first()
    test = ListeningTest.objects.filter(name=TEST_NAME).first()
    if existing or admin is None or test is None:
        if stdout and existing:
            stdout.write(f"releases: demo release exists ({existing})")
        return existing
    # The demo builds inline, whatever the runner, so the release is there when seed_demo returns.
    with run_here():
        release = create_release(acting_user=admin, kind="mos", source_id=test.pk, name=DEMO_NAME, version="1.0.0",
                                 license="CC-BY-4.0", sources=[{"name": "Sori demo clips (espeak-ng)", "license": "CC-BY-4.0"}],
                                 description="The demo listening test's clips and ratings (synthetic voices, demo listeners).")
    release.refresh_from_db()
    if release.status == "built":
        release = publish_release(release=release, acting_user=admin)
    if stdout:
        stdout.write(f"releases: demo release {release} ({release.get_status_display()})")
    return release


def build_spoken_qa(benchmark, name: str, admin, description: str):
    """The Korean spoken-QA release of a demo benchmark (its translations, normalized texts and accepted
    audio), built inline and published: the newest built one when it exists, else version 1.0.0. None when
    nothing of it can be released yet (no accepted audio)."""
    return _build_and_publish("spoken-qa", benchmark.pk, name, admin, description)


def build_kmmau(question_set, name: str, admin, description: str):
    """The KMMAU release of a demo question set (its accepted questions with their clips), the same way. None
    when the set has no accepted question yet."""
    return _build_and_publish("kmmau", question_set.pk, name, admin, description)


def _build_and_publish(kind: str, source_id: int, name: str, admin, description: str):
    from apps.core.errors import Conflict

    existing = Release.objects.filter(name=name, status__in=("built", "published")).order_by("-created_at").first()
    if existing is not None:
        return existing
    try:
        with run_here():
            release = create_release(acting_user=admin, kind=kind, source_id=source_id, name=name, version="1.0.0",
                                     description=description)
    except Conflict:
        return None
    release.refresh_from_db()
    return publish_release(release=release, acting_user=admin) if release.status == "built" else None
