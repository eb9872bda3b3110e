import pytest
from django.core.management import CommandError, call_command

from apps.jobs.models import JobStatus
from apps.releases.models import Release
from apps.releases.writing import verify_folder


@pytest.mark.django_db
def test_build_release_and_publish_release_as_written(settled_project, admin, tmp_path, capsys):
    out = tmp_path / "hpsu-1.0.0"
    call_command("build_release", "--kind", "hpsu", "--from", str(settled_project.pk), "--name", "hpsu",
                 "--version", "1.0.0", "--out", str(out), "--license", "CC-BY-NC-SA-4.0",
                 "--source", "HPSU=CC-BY-NC-SA-4.0")
    release = Release.objects.get(name="hpsu", version="1.0.0")
    assert release.status == "built" and verify_folder(out) == []
    assert (out / "HPSU_data.json").exists() and (out / "data" / "Intent.parquet").exists()
    job = release.job
    assert job.status == JobStatus.SUCCEEDED and job.total == job.done == 4  # three items and the HPSU file

    call_command("publish_release", "hpsu", "1.0.0")
    assert Release.objects.get(pk=release.pk).is_published
    assert "Published hpsu 1.0.0" in capsys.readouterr().out
    with pytest.raises(CommandError, match="published already"):
        call_command("publish_release", "hpsu", "1.0.0")


@pytest.mark.django_db
def test_build_release_names_what_is_wrong(settled_project, admin, tmp_path):
    with pytest.raises(CommandError, match="needs a licence"):
        call_command("build_release", "--kind", "hpsu", "--from", str(settled_project.pk), "--name", "hpsu",
                     "--version", "1.0.0", "--out", str(tmp_path / "a"), "--source", "HPSU=CC-BY-4.0")
    with pytest.raises(CommandError, match="no verification project with id 999"):
        call_command("build_release", "--kind", "hpsu", "--from", "999", "--name", "hpsu", "--version", "1.0.0",
                     "--out", str(tmp_path / "b"), "--license", "MIT", "--source", "x=MIT")
    with pytest.raises(CommandError, match="NAME=LICENCE"):
        call_command("build_release", "--kind", "hpsu", "--from", str(settled_project.pk), "--name", "hpsu",
                     "--version", "1.0.0", "--out", str(tmp_path / "c"), "--license", "MIT", "--source", "HPSU")
    assert not Release.objects.exists()


@pytest.mark.django_db
def test_a_listening_test_still_importing_is_not_released(rated_test, admin):
    from apps.core.errors import Conflict
    from apps.listening.models import ListeningTest, TestStatus
    from apps.releases.services import create_release

    ListeningTest.objects.filter(pk=rated_test.pk).update(status=TestStatus.IMPORTING)
    with pytest.raises(Conflict, match="still importing"):
        create_release(acting_user=admin, kind="mos", source_id=rated_test.pk, name="komos", version="1.0.0",
                       license="CC-BY-4.0", sources=[{"name": "Sori listening test", "license": "CC-BY-4.0"}])
