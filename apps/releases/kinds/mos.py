"""MOS ratings release of a listening test (KOMOS, seed 001): clips with MOS, median, std, CI, split and
disjoint flags; every clean rating with its listener's pseudonym; and the BVCC-style listener file that
UTMOS-style trainers read. The tables come from apps.listening.exports, so a release and the admin export
agree; gold (quality-control) clips and excluded listeners stay out, as in the training file."""

import shutil
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from django.utils.translation import gettext

from apps.accounts.models import Pseudonym
from apps.accounts.pseudonyms import LISTENING
from apps.core.errors import Conflict
from apps.listening.exports import build_tables, write_listener_ratings
from apps.listening.models import ListeningTest, TestStatus
from apps.releases.kinds import Built, Item, SourceMissing, Ticker

CLIP_COLUMNS = {
    "id": "string", "audio": "audio", "text": "string", "speaker": "string", "source_type": "string",
    "style": "string", "category": "string", "system": "string", "n": "int64", "mos_mean": "float64",
    "mos_median": "float64", "std": "float64", "ci95": "float64", "split": "string",
    "speaker_disjoint": "bool", "text_disjoint": "bool",
}
RATING_COLUMNS = {"clip_id": "string", "audio": "audio", "listener": "string", "score": "int64", "rated_at": "string"}


def source(source_id: int):
    test = ListeningTest.objects.filter(pk=source_id).first()
    if test is None:
        raise SourceMissing(f"no listening test with id {source_id}")
    if test.status == TestStatus.IMPORTING:  # some of its clips are not stored yet
        raise Conflict(gettext(
            "listening test %(name)r is still importing; resume or discard the import first"
        ) % {"name": test.name},
                       code="importing")
    return test


def default_license(obj) -> str | None:
    return None


def selection(test) -> dict:
    return {"source": "listening test", "id": test.pk, "name": test.name,
            "statuses": ["regular clips", "clean ratings (gold clips and excluded listeners left out)"]}


def default_sources(test) -> list[dict]:
    return []


@dataclass
class _Loaded:
    """The listening export's tables and what each clip's item is made from, read once."""

    ratings: pd.DataFrame  # every rating, with its flags
    clips: pd.DataFrame  # one row per regular clip
    bvcc: list[list[str]]  # the BVCC-style listener file's lines
    assets: dict  # clip id -> Clip with its audio asset
    clean: pd.DataFrame  # the ratings without a flag
    by_clip: dict[str, list[dict]]  # clip id -> its clean ratings
    people: dict[str, int]  # listener pseudonym -> user id


def build(test, folder: Path, progress) -> Built:
    """Load the export's tables, copy each clip's audio and make its item, write the listener file, then the
    card's text."""
    loaded = _load(test)
    ticker = Ticker(progress, len(loaded.clips), "Copying clips and writing tables")
    items, rating_rows = [], {}
    for row in loaded.clips.to_dict("records"):
        item = _clip_item(test, row, loaded, folder)
        for rating in _rating_rows(item, loaded):
            rating_rows.setdefault(item.split, []).append(rating)
        items.append(item)
        ticker.tick(f"Clip {item.item_id}")
    write_listener_ratings(loaded.bvcc, folder / "listener_ratings.csv")
    return _card(test, items, rating_rows, loaded)


def _load(test) -> _Loaded:
    ratings, clips, bvcc = build_tables(test)
    assets = {c.clip_id: c for c in test.clips.select_related("asset").order_by("clip_id")}
    clean = ratings[ratings["flags"] == ""]
    by_clip: dict[str, list[dict]] = {}
    for record in clean.to_dict("records"):
        by_clip.setdefault(record["clip_id"], []).append(record)
    people = dict(Pseudonym.objects.filter(scope=LISTENING, value__in=set(clean["listener"])).values_list("value", "user_id"))
    return _Loaded(ratings=ratings, clips=clips, bvcc=bvcc, assets=assets, clean=clean, by_clip=by_clip, people=people)


def _clip_item(test, row: dict, loaded: _Loaded, folder: Path) -> Item:
    """One clip: its audio copied into the release, its row and its provenance line (its clean ratings)."""
    clip = loaded.assets[row["clip_id"]]
    target = folder / row["audio"]
    target.parent.mkdir(parents=True, exist_ok=True)
    with clip.asset.file.open("rb") as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst)
    split = row["split"] or "unsplit"
    data = {"id": row.pop("clip_id"), **{k: _plain(v) for k, v in row.items()}}
    mine = loaded.by_clip.get(data["id"], [])
    return Item(
        item_id=data["id"], config="clips", split=split, row=data, audio_sha256=clip.asset.sha256,
        provenance={
            "id": data["id"],
            "source": {"listening_test": test.name, "clip_id": data["id"], "audio_sha256": clip.asset.sha256,
                       "audio_name": clip.audio_name, "speaker": clip.speaker, "system": clip.system,
                       "source_type": clip.source_type},
            "agent_calls": [], "rulebook_versions": [],
            "human_decisions": {
                "count": len(mine), "pseudonyms": sorted({r["listener"] for r in mine}),
                "decisions": [{"kind": "rating", "by": r["listener"], "at": r["rated_at"],
                               "what": f"overall quality {int(r['score'])}"} for r in mine],
            },
        },
        people={r["listener"]: loaded.people.get(r["listener"]) for r in mine},
    )


def _rating_rows(item: Item, loaded: _Loaded) -> list[dict]:
    """The clip's clean ratings as rows of the ratings config."""
    return [{"clip_id": r["clip_id"], "audio": item.row["audio"], "listener": r["listener"], "score": int(r["score"]),
             "rated_at": r["rated_at"]} for r in loaded.by_clip.get(item.item_id, [])]


def _card(test, items: list[Item], rating_rows: dict[str, list[dict]], loaded: _Loaded) -> Built:
    """What is left out and why, the ratings config, the statistics and the card's text."""
    ratings, clean, assets = loaded.ratings, loaded.clean, loaded.assets
    excluded = {c.clip_id: "gold (quality-control) clip" for c in assets.values() if c.is_gold}
    for r in ratings.to_dict("records"):
        if "excluded_listener" in r["flags"] and not assets[r["clip_id"]].is_gold:
            excluded.setdefault(f"rating:{r['clip_id']}:{r['listener']}", "listener excluded by an admin")
    splits = {}
    for item in items:
        splits[item.split] = splits.get(item.split, 0) + 1
    return Built(
        columns={"clips": CLIP_COLUMNS, "ratings": RATING_COLUMNS},
        items=items,
        config_rows={"ratings": {s: rating_rows.get(s, []) for s in sorted(splits)}},
        excluded=excluded,
        statistics={"clips": len(items), "ratings": int(len(clean)), "listeners": int(clean["listener"].nunique()),
                    "clips per split": dict(sorted(splits.items())),
                    "speaker-disjoint test clips": sum(1 for i in items if i.row["speaker_disjoint"]),
                    "text-disjoint test clips": sum(1 for i in items if i.row["text_disjoint"])},
        how_built=[
            f"Listening test {test.name!r}: each clip rated 1-5 for overall quality (ACR) by "
            f"{test.pool.required_per_item} different listeners who never saw the transcript.",
            "MOS is the mean of a clip's clean ratings; the median, sample std and the Student-t 95 % CI "
            "half-width are kept. Gold (quality-control) clips and listeners excluded by an admin are left out.",
            "Splits are stratified by MOS; the test split flags speaker- and text-disjoint clips.",
            "Listeners appear only as stable random pseudonyms.",
        ],
        task_categories=["audio-classification"],
        tags=["mos", "speech-quality-assessment", "korean"],
        extra_files={"listener_ratings.csv": "BVCC-style listener file: system,clip_file,score,ignore,listener info "
                     "(no header), one line per clean rating"},
    )


def _plain(value):
    """pandas/numpy scalars as plain JSON values (NaN as null)."""
    if value is None:
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value
