"""Fixtures for verification tests: HPSU records, a media folder of real WAV files, imported projects."""

import json
from pathlib import Path

import pytest

from tests.conftest import write_wav


def record(ext_id: str, **overrides) -> dict:
    """A valid tiered single-choice Intent item in the release format."""
    base = {
        "id": ext_id,
        "audio_path": f"Audios/{ext_id}.wav",
        "category": "Discourse Context",
        "sub-category": "Intent",
        "question": "Listen to the audio and identify the speaker's purpose.",
        "choice": ["Complain", "Reject", "Question", "Thanks"],
        "attributes": {"true": "Complain", "similar": "Reject", "middle": "Question", "opposite": "Thanks"},
        "answer": "Complain",
        "source": "Celebv-HQ",
        "metric": "SC_type_eval",
        "type": "Single-Choice",
        "language": "en",
    }
    base.update(overrides)
    return base


def mc_record(ext_id: str, **overrides) -> dict:
    fields = {
        "category": "Emotion Recognition", "sub-category": "Emotions",
        "question": "Please determine the emotions conveyed in the speaker's voice.",
        "choice": ["Contentment", "Pride", "Disgust", "Grief", "Boredom", "Fear"],
        "attributes": {"true": "Contentment,Pride"}, "answer": "Contentment,Pride", "metric": "MC_eval",
        "type": "Multiple-Choice",
    }
    return record(ext_id, **{**fields, **overrides})


def yes_no_record(ext_id: str, **overrides) -> dict:
    fields = {
        "category": "Nonverbal Behavior", "sub-category": "Description",
        "question": "听完音频后，以下对说话者的描述是否与你的理解一致？",
        "choice": ["一位成年男性，面带微笑。", "一位儿童，面带微笑。"], "attributes": "", "answer": "一位成年男性，面带微笑。",
        "selected_field": "distractor", "metric": "JB_eval", "type": "Judgment/Binary", "language": "zh",
    }
    return record(ext_id, **{**fields, **overrides})


class HpsuFolder:
    def __init__(self, root: Path):
        self.root = root
        self.media = root / "media"
        self.media.mkdir(parents=True, exist_ok=True)
        self._freq = 300.0

    def write(self, records: list[dict], *, name: str = "items.json", jsonl: bool = False, audio: bool = True) -> Path:
        if audio:
            for r in records:
                path = self.media / r["audio_path"]
                if not path.exists():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    self._freq += 7
                    write_wav(path, seconds=0.3, freq=self._freq)
        path = self.root / name
        if jsonl:
            path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
        else:
            path.write_text(json.dumps(records, ensure_ascii=False, indent=2), encoding="utf-8")
        return path


@pytest.fixture
def hpsu(tmp_path):
    return HpsuFolder(tmp_path / "hpsu")


@pytest.fixture
def make_project(hpsu, db):
    from apps.verification.services import import_items

    def make(n: int = 3, *, name: str = "HPSU test", settle_on_first_rejection: bool = False, records=None):
        records = records or [record(f"item-{i}") for i in range(1, n + 1)]
        path = hpsu.write(records, name=f"{name}.json")
        batch = import_items(project_name=name, file_path=path, media_dir=hpsu.media,
                             settle_on_first_rejection=settle_on_first_rejection)
        return batch.project

    return make
