"""The card parses back (YAML and huggingface_hub), and `datasets` loads every kind from disk, offline."""

import json

import pytest
import yaml


def _front_matter(path):
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    head, _, body = text[4:].partition("\n---\n")
    return yaml.safe_load(head), body


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    """No request leaves the machine. The libraries read their offline switches once, at import, so the
    switches are set on their config (and restored after the test) rather than in the environment."""
    import datasets.config
    import huggingface_hub.constants

    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


def _load_every_config(folder, meta, tmp_path):
    from datasets import Audio, load_dataset

    loaded = {}
    for config in meta["configs"]:
        files = {f["split"]: str(folder / f["path"]) for f in config["data_files"]}
        ds = load_dataset("parquet", data_files=files, cache_dir=str(tmp_path / "hf-cache"))
        for split, part in ds.items():
            if "audio" in part.features:
                assert isinstance(part.features["audio"], Audio)  # from the Parquet's huggingface metadata
                part = part.cast_column("audio", Audio(decode=False))
            loaded[(config["config_name"], split)] = part
    return loaded


@pytest.mark.django_db
def test_the_mos_card_parses_back_and_datasets_loads_clips_and_ratings(rated_test, build, extracted, tmp_path):
    from huggingface_hub import DatasetCard

    release = build("mos", rated_test, name="komos", license="CC-BY-4.0")
    folder = extracted(release)
    meta, body = _front_matter(folder / "README.md")
    assert meta["license"] == "cc-by-4.0" and meta["language"] == ["ko"] and meta["size_categories"] == ["n<1K"]
    assert [c["config_name"] for c in meta["configs"]] == ["clips", "ratings"]
    info = {i["config_name"]: i for i in meta["dataset_info"]}
    assert {"name": "audio", "dtype": "audio"} in info["clips"]["features"]
    card = DatasetCard.load(folder / "README.md")
    assert card.data.license == "cc-by-4.0" and card.data.configs == meta["configs"]
    assert "## How it was built" in body and "Sori listening test: CC-BY-4.0" in body

    loaded = _load_every_config(folder, meta, tmp_path)
    clips = loaded[("clips", "unsplit")]
    assert len(clips) == 6 and clips[0]["audio"]["path"].startswith("audio/")
    assert (folder / clips[0]["audio"]["path"]).is_file()
    assert {"mos_mean", "mos_median", "std", "ci95", "split", "speaker_disjoint", "text_disjoint"} <= set(clips.column_names)
    ratings = loaded[("ratings", "unsplit")]
    assert len(ratings) == 30 and all(r["listener"].startswith("L") for r in ratings)
    first = clips[0]
    scores = [r["score"] for r in ratings if r["clip_id"] == first["id"]]
    assert first["mos_mean"] == pytest.approx(sum(scores) / 5)


@pytest.mark.django_db
def test_hpsu_and_spoken_qa_load_too_and_hpsu_keeps_the_format_sori_imports(settled_project, benchmark, build, extracted, tmp_path):
    from apps.verification.services import import_items

    hpsu = extracted(build("hpsu", settled_project, name="hpsu-set"))
    meta, _ = _front_matter(hpsu / "README.md")
    assert meta["language"] == ["en", "ko"]
    loaded = _load_every_config(hpsu, meta, tmp_path)
    assert sorted(loaded) == [("Emotions", "test"), ("Intent", "test")]
    intent = loaded[("Intent", "test")]
    assert intent["id"] == ["r1", "r4"] and json.loads(intent[0]["attributes"])["true"] == "Complain"
    again = import_items(project_name="Reimported", file_path=hpsu / "HPSU_data.json", media_dir=hpsu)
    assert again.project.items.count() == 3

    spoken = extracted(build("spoken-qa", benchmark, name="kvb"))
    meta, _ = _front_matter(spoken / "README.md")
    assert meta["license"] == "apache-2.0"
    loaded = _load_every_config(spoken, meta, tmp_path)
    sd = loaded[("sd-qa", "test")]
    assert sd.column_names == ["id", "audio", "transcription", "answer", "aliases", "subset", "capability"]
    assert len(sd) == 4 and sd[0]["audio"] is None  # no synthesised audio yet


def test_our_feature_metadata_is_what_datasets_itself_writes():
    import datasets

    from apps.releases.writing import feature, yaml_features

    columns = {"id": "string", "audio": "audio", "aliases": "list:string", "n": "int64", "x": "float64", "b": "bool"}
    theirs = datasets.Features({"id": datasets.Value("string"), "audio": datasets.Audio(),
                                "aliases": datasets.List(datasets.Value("string")), "n": datasets.Value("int64"),
                                "x": datasets.Value("float64"), "b": datasets.Value("bool")})
    assert {name: feature(kind) for name, kind in columns.items()} == theirs.to_dict()
    assert yaml_features(columns) == theirs._to_yaml_list()


@pytest.mark.django_db
def test_the_cards_dataset_info_is_read_whole_by_datasets_and_the_hub_library(rated_test, build, extracted, tmp_path):
    # Seed: the Hub's dataset card metadata (huggingface_hub DatasetCardData) and datasets' reader of it
    # (DatasetInfosDict.from_dataset_card_data), which drops a config's splits with "Ignoring part of
    # dataset_info ... missing num_bytes" when a split lacks a field.
    from datasets import load_dataset
    from datasets.info import DatasetInfosDict
    from huggingface_hub import DatasetCard

    folder = extracted(build("mos", rated_test, name="komos-card", license="CC-BY-4.0"))
    card = DatasetCard.load(folder / "README.md")
    infos = DatasetInfosDict.from_dataset_card_data(card.data)
    clips = infos["clips"]
    assert clips.splits["unsplit"].num_examples == 6 and clips.splits["unsplit"].num_bytes > 0
    assert clips.dataset_size == clips.splits["unsplit"].num_bytes
    assert clips.download_size == (folder / "data/clips.parquet").stat().st_size
    assert infos["ratings"].splits["unsplit"].num_examples == 30

    # The folder loads as a dataset repository: its card's configs and split sizes are read and checked.
    ratings = load_dataset(str(folder), "ratings", cache_dir=str(tmp_path / "hf-cache"))
    assert len(ratings["unsplit"]) == 30
