"""A zip bomb is refused by its compression ratio, per member and for the whole archive, naming the zip, the
member and the limit (SORI_ZIP_MAX_RATIO), with nothing left unpacked; an ordinary bundle still unpacks."""

import io
import os
import zipfile

import pytest

from apps.core.archives import extract_zip
from apps.core.errors import FileRefused

MiB = 1024 * 1024


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


@pytest.fixture
def out(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def test_a_member_of_50_mb_of_zeros_is_refused_by_its_ratio_before_anything_is_written(out):
    data = _zip({"manifest.csv": b"clip_id,path\nc1,zeros.wav\n", "audio/zeros.wav": bytes(50 * MiB)})
    assert len(data) < MiB  # 50 MB from a few kilobytes
    with pytest.raises(FileRefused) as refused:
        extract_zip(io.BytesIO(data), out, name="bomb.zip")
    message = str(refused.value)
    assert message.startswith("bomb.zip: audio/zeros.wav unpacks to 52,428,800 bytes from ")
    assert message.endswith("over the limit of 100x (SORI_ZIP_MAX_RATIO)")
    assert not any(out.rglob("*"))


def test_many_small_members_are_refused_by_the_archives_ratio(out):
    members = {f"audio/c{i:03}.wav": bytes(900 * 1024) for i in range(40)}  # each under 1 MiB, 36 MB in all
    with pytest.raises(FileRefused, match=r"^many.zip: at audio/c\d{3}.wav the archive unpacks to .* "
                                          r"over the limit of 100x \(SORI_ZIP_MAX_RATIO\)$"):
        extract_zip(io.BytesIO(_zip(members)), out, name="many.zip")
    assert not any(out.rglob("*"))


def test_the_ratio_limit_is_a_setting(out, settings):
    settings.ZIP_MAX_RATIO = 10_000
    written = extract_zip(io.BytesIO(_zip({"zeros.bin": bytes(5 * MiB)})), out, name="zeros.zip")
    assert [p.name for p in written] == ["zeros.bin"] and (out / "zeros.bin").stat().st_size == 5 * MiB


def test_an_ordinary_bundle_with_a_short_silent_clip_unpacks(out):
    audio = {f"audio/c{i}.wav": os.urandom(2 * MiB) for i in range(3)}  # audio barely compresses
    members = {"manifest.csv": b"clip_id,path\n" + b"".join(b"c%d,audio/c%d.wav\n" % (i, i) for i in range(3)),
               "audio/silence.wav": bytes(320_000), **audio}  # 10 s of digital silence: ratio ~1000, but small
    written = extract_zip(io.BytesIO(_zip(members)), out, name="bundle.zip")
    assert sorted(p.relative_to(out).as_posix() for p in written) == sorted(members)
    assert (out / "audio/c1.wav").read_bytes() == audio["audio/c1.wav"]
