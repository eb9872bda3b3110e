"""Exports of a listening test, every file with a header row except the BVCC-style one:

- ratings.csv / ratings.parquet: one row per rating (all of them, raw), with flags (gold, excluded_listener)
- clips.csv / clips.parquet: one row per regular clip with metadata, clean n, mos_mean, mos_median, std,
  ci95, split, speaker_disjoint, text_disjoint
- listener_ratings.csv: `system,clip_file,score,ignore,{}_na_LISTENER_na_na_na_na` per clean rating of a
  regular clip, no header, as UTMOS's BVCC loader reads it
- audio/<file>: the clips' audio (optional), which the `audio` columns point at

Listeners appear only as stable pseudonyms (apps.accounts.pseudonyms, scope LISTENING), never as usernames."""

from __future__ import annotations

import io
import re
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from apps.accounts.pseudonyms import LISTENING, pseudonyms_for
from apps.audio.naming import file_name
from apps.core import csvsafe
from apps.core.archives import zip_folder
from apps.instructions.services import version_at
from apps.listening import selectors
from apps.listening.models import Clip, ListeningTest, Rating

EXPORT_FILES = ("ratings.csv", "clips.csv", "ratings.parquet", "clips.parquet", "listener_ratings.csv")


def _audio_file_name(clip: Clip) -> str:
    """A safe file name for the clip's audio in the export: its clip id (without the audio extension an id
    may keep from its file name) and the extension of the audio's bytes."""
    return file_name(clip.clip_id, clip.asset, fallback=f"clip{clip.pk}")


def build_tables(test: ListeningTest) -> tuple[pd.DataFrame, pd.DataFrame, list[list[str]]]:
    """(ratings, clips, bvcc rows) as they are written."""
    clips = list(test.clips.select_related("asset").order_by("clip_id"))
    names = _names(clips)
    by_pk = {c.pk: c for c in clips}
    excluded = selectors.excluded_listener_ids(test)
    ratings_in_order = list(Rating.objects.filter(clip__test=test).order_by("clip__clip_id", "rated_at", "pk"))
    pseudonyms = pseudonyms_for({r.listener_id for r in ratings_in_order}, LISTENING)

    instructions_at = version_at(test)  # the instructions in force when each rating was given
    rating_rows, rating_clips = [], []
    for rating in ratings_in_order:
        clip = by_pk[rating.clip_id]
        flags = (["gold"] if clip.is_gold else []) + (["excluded_listener"] if rating.listener_id in excluded else [])
        if clip.is_gold and not (clip.gold_min <= rating.score <= clip.gold_max):
            flags.append("gold_missed")
        rating_rows.append({
            "clip_id": clip.clip_id, "audio": f"audio/{names[clip.pk]}", "listener": pseudonyms[rating.listener_id],
            "score": rating.score, "rated_at": rating.rated_at.isoformat(), "flags": ";".join(flags),
            "instructions_version": instructions_at(rating.rated_at),
        })
        rating_clips.append(clip)
    ratings = pd.DataFrame(rating_rows, columns=["clip_id", "audio", "listener", "score", "rated_at", "flags",
                                                 "instructions_version"])

    table = selectors.clean_clip_table(test)
    clip_rows = []
    for clip in clips:
        if clip.is_gold:
            continue
        row = table.loc[clip.pk] if clip.pk in table.index else None
        clip_rows.append({
            "clip_id": clip.clip_id, "audio": f"audio/{names[clip.pk]}", "text": clip.text, "speaker": clip.speaker,
            "source_type": clip.source_type, "style": clip.style, "category": clip.category, "system": clip.system,
            "n": int(row["n"]) if row is not None else 0,
            "mos_mean": _num(row, "mos_mean"), "mos_median": _num(row, "mos_median"),
            "std": _num(row, "std"), "ci95": _num(row, "ci95"),
            "split": clip.split, "speaker_disjoint": clip.speaker_disjoint, "text_disjoint": clip.text_disjoint,
        })
    clip_frame = pd.DataFrame(clip_rows, columns=[
        "clip_id", "audio", "text", "speaker", "source_type", "style", "category", "system", "n", "mos_mean",
        "mos_median", "std", "ci95", "split", "speaker_disjoint", "text_disjoint",
    ])

    bvcc = []
    for rating_row, clip in zip(rating_rows, rating_clips, strict=True):
        if rating_row["flags"]:  # gold clips and excluded listeners stay out of the training file
            continue
        bvcc.append([
            clip.system or clip.source_type, names[clip.pk], str(rating_row["score"]), "0",
            f"{{}}_na_{rating_row['listener']}_na_na_na_na",
        ])
    return ratings, clip_frame, bvcc


def _num(row, column):
    if row is None:
        return None
    value = row[column]
    return None if pd.isna(value) else round(float(value), 6)


def write_export(test: ListeningTest, out: Path, *, include_audio: bool = True) -> list[Path]:
    """Write the export files (and audio) into `out`; returns the written paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ratings, clips, bvcc = build_tables(test)
    written = []
    csvsafe.write_frame(ratings, out / "ratings.csv")
    csvsafe.write_frame(clips, out / "clips.csv")
    ratings.to_parquet(out / "ratings.parquet", index=False)
    clips.to_parquet(out / "clips.parquet", index=False)
    write_listener_ratings(bvcc, out / "listener_ratings.csv")
    written += [out / name for name in EXPORT_FILES]
    if include_audio:
        (out / "audio").mkdir(exist_ok=True)
        clips = list(test.clips.select_related("asset").order_by("clip_id"))
        for clip, name in zip(clips, _names(clips).values(), strict=True):
            target = out / "audio" / name
            with clip.asset.file.open("rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
            written.append(target)
    return written


def write_listener_ratings(bvcc: list[list[str]], path: Path) -> None:
    """The BVCC-style listener file: no header, "\\n" line ends, as UTMOS's loader reads it."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csvsafe.writer(fh, lineterminator="\n").writerows(bvcc)


def _names(clips: list[Clip]) -> dict[int, str]:
    """clip pk -> audio file name in the export, in clip order; unique even if two ids sanitise alike."""
    names, used = {}, set()
    for clip in clips:
        name = _audio_file_name(clip)
        if name in used:
            name = f"{Path(name).stem}_{clip.pk}{Path(name).suffix}"
        used.add(name)
        names[clip.pk] = name
    return names


def export_zip(test: ListeningTest, *, include_audio: bool = True) -> bytes:
    """The same files as `write_export`, zipped under a folder named after the test, for the admin download."""
    folder = re.sub(r"[^A-Za-z0-9._-]+", "_", test.name).strip("._") or f"test{test.pk}"
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp:
        write_export(test, Path(tmp), include_audio=include_audio)
        zip_folder(Path(tmp), buffer, prefix=folder)
    return buffer.getvalue()

