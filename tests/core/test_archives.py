"""zip_folder: the same files give the same bytes, whenever they were written, and extract_zip reads them back."""

import io
import os

from apps.core.archives import extract_zip, zip_folder


def _folder(root, mtime):
    (root / "audio").mkdir(parents=True)
    (root / "b.csv").write_text("id\n1\n")
    (root / "audio" / "a.wav").write_bytes(b"RIFF" + bytes(100))
    for path in [root / "b.csv", root / "audio" / "a.wav"]:
        os.utime(path, (mtime, mtime))
    return root


def test_zipping_the_same_files_twice_gives_the_same_bytes(tmp_path):
    first, second = io.BytesIO(), io.BytesIO()
    zip_folder(_folder(tmp_path / "one", 1_000_000_000), first, prefix="set")
    zip_folder(_folder(tmp_path / "two", 1_700_000_000), second, prefix="set")
    assert first.getvalue() == second.getvalue()


def test_a_zipped_folder_unpacks_to_the_same_files_sorted_under_its_prefix(tmp_path):
    buffer = io.BytesIO()
    zip_folder(_folder(tmp_path / "src", 1_000_000_000), buffer, prefix="set")
    written = extract_zip(io.BytesIO(buffer.getvalue()), tmp_path / "out", name="set.zip", prefix="set/")
    assert [p.relative_to(tmp_path / "out").as_posix() for p in written] == ["audio/a.wav", "b.csv"]
    assert (tmp_path / "out" / "b.csv").read_text() == "id\n1\n"


def test_without_a_prefix_the_files_lie_at_the_top(tmp_path):
    buffer = io.BytesIO()
    zip_folder(_folder(tmp_path / "src", 1_000_000_000), buffer)
    written = extract_zip(io.BytesIO(buffer.getvalue()), tmp_path / "out", name="set.zip")
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in written) == ["audio/a.wav", "b.csv"]
