"""Every importer reads through the one reader: a bad file is refused as a whole, each problem named by
file and line (or row) and field, and nothing of it is written."""

import io
import json
import zipfile

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from apps.audio.models import AudioAsset
from apps.core.errors import FileRefused
from apps.listening.models import ListeningTest
from apps.sources.models import SourceSample
from apps.verification.models import VerificationItem
from tests.conftest import write_wav

pytestmark = pytest.mark.django_db

MANIFEST = (
    "clip_id,audio,text,speaker,source_type,style,category\n"
    "c1,c1.wav,hello,s1,real,read,news\n"
    "c2,c2.wav,,s1,real,read,news\n"
    "c3,../c3.wav,hi,s2,vocoded,read,news\n"
    "c1,c1.wav,again,s1,real,read,news\n"
)
HPSU = [
    {"id": "h1", "audio_path": "h1.wav", "sub-category": "Intent", "question": "Why?", "choice": ["A", "B"],
     "answer": "C", "type": "Single-Choice", "language": "en"},
    {"id": "h2", "audio_path": "h2.wav", "sub-category": "Intent", "question": "Why?", "choice": ["A", "B"],
     "answer": "A", "type": "Single-Choice", "language": "xx"},
]


def _listening(tmp_path):
    from apps.listening.services import import_listening_test

    write_wav(tmp_path / "c1.wav")
    (tmp_path / "manifest.csv").write_text(MANIFEST)
    import_listening_test(name="t", manifest=tmp_path / "manifest.csv")


def _listening_bundle(tmp_path):
    from apps.listening.jobs import unpack_bundle

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("manifest.csv", MANIFEST)
        zf.writestr("../../escape.wav", b"x")
    (tmp_path / "out").mkdir()
    unpack_bundle(io.BytesIO(buffer.getvalue()), tmp_path / "out", label="bundle.zip")


def _hpsu(tmp_path):
    from apps.verification.services import import_items

    (tmp_path / "items.json").write_text(json.dumps(HPSU, indent=1))
    write_wav(tmp_path / "h2.wav")
    import_items(project_name="p", file_path=tmp_path / "items.json", media_dir=tmp_path)


def _voicebench_parquet(tmp_path):
    from apps.sources.services import import_benchmark

    pq.write_table(pa.table({"prompt": ["Q1", None, "Q3"], "reference": ["A", "B", None]}), tmp_path / "sd-qa.parquet")
    import_benchmark(fmt="voicebench", subset="sd-qa", path=tmp_path / "sd-qa.parquet")


def _openaudiobench_csv(tmp_path):
    from apps.sources.services import import_benchmark

    (tmp_path / "trivia_qa.csv").write_text(
        "audio_filename,question,answer_normalized_aliases\na.wav,Q?,\"['x']\"\nb.wav,Q?,\"['y', \"\n"
    )
    import_benchmark(fmt="openaudiobench", subset="trivia_qa", path=tmp_path / "trivia_qa.csv")


def _audio_folder(tmp_path):
    from apps.audio.services import import_folder

    write_wav(tmp_path / "good.wav")
    (tmp_path / "bad.wav").write_bytes(b"RIFF not audio")
    import_folder(tmp_path)


TABLE = [
    (_listening, [
        "manifest.csv line 3: audio: missing audio file c2.wav",
        "manifest.csv line 3: text: missing or empty",
        "manifest.csv line 4: audio: audio path '../c3.wav' must stay inside the manifest's folder",
        "manifest.csv line 4: source_type: unknown source type 'vocoded' (expected real, tts, degraded)",
        "manifest.csv line 5: clip_id: 'c1' repeats line 2",
    ]),
    (_listening_bundle, ["bundle.zip: ../../escape.wav would unpack outside the archive's folder"]),
    (_hpsu, [
        "items.json line 2: the answer 'C' is not among the options",
        "items.json line 15: language: unknown language 'xx' (expected en, zh, ko)",
    ]),
    (_voicebench_parquet, ["sd-qa.parquet row 2: prompt: missing or empty", "sd-qa.parquet row 3: reference: missing or empty"]),
    (_openaudiobench_csv, ["trivia_qa.csv line 3: answer_normalized_aliases: cannot read the list \"['y',\""]),
    (_audio_folder, ["bad.wav: not an audio file (ffprobe found no audio stream)"]),
]


@pytest.mark.parametrize("importer, expected", TABLE, ids=[importer.__name__.strip("_") for importer, _ in TABLE])
def test_each_importer_names_every_bad_row_and_writes_nothing(tmp_path, importer, expected):
    with pytest.raises(FileRefused) as refused:
        importer(tmp_path)
    assert refused.value.lines() == expected
    assert not (tmp_path.parent / "escape.wav").exists()
    for model in (ListeningTest, VerificationItem, SourceSample, AudioAsset):
        assert not model.objects.exists(), model
