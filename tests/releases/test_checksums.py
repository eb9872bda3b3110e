import pytest
from django.core.management import CommandError, call_command

from apps.releases.writing import verify_folder


@pytest.mark.django_db
def test_checksum_verification_names_a_changed_a_missing_and_an_added_file(rated_test, build, extracted):
    folder = extracted(build("mos", rated_test, name="komos"))
    assert verify_folder(folder) == []
    call_command("verify_release", str(folder))

    audio = sorted((folder / "audio").iterdir())
    audio[0].write_bytes(audio[0].read_bytes()[:-2] + b"\x00\x01")
    audio[1].unlink()
    (folder / "data" / "extra.jsonl").write_text("{}\n")
    problems = verify_folder(folder)
    assert f"audio/{audio[0].name}: sha256 differs from SHA256SUMS (the file was changed)" in problems
    assert f"audio/{audio[1].name}: listed in SHA256SUMS but missing" in problems
    assert "data/extra.jsonl: not listed in SHA256SUMS" in problems
    with pytest.raises(CommandError, match="sha256 differs"):
        call_command("verify_release", str(folder))
