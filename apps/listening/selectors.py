"""Reads of the listening app: rating frames, the clean set, the dashboard, the summary and the listener's
own counts. The clean set leaves out gold clips and the ratings of excluded listeners."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from django.db.models import Count, Q
from django.utils import timezone

from apps.listening import stats
from apps.listening.models import ListeningTest, Rating
from apps.listening.qc import FLAG_LABELS, ListenerQC, listener_qc
from apps.queues import selectors as queue_selectors


def excluded_listener_ids(test: ListeningTest) -> set[int]:
    return set(test.pool.excluded_workers.values_list("pk", flat=True))


def ratings_frame(test: ListeningTest, *, clean: bool = True, gold: bool = False) -> pd.DataFrame:
    """One row per rating: clip (pk), listener (user id), score, rated_at. Regular clips, or gold clips with
    gold_min/gold_max when gold=True. clean=True leaves out excluded listeners."""
    qs = Rating.objects.filter(clip__test=test, clip__gold_min__isnull=not gold)
    if clean:
        qs = qs.exclude(listener_id__in=excluded_listener_ids(test))
    fields = ["clip_id", "listener_id", "score", "rated_at"] + (["clip__gold_min", "clip__gold_max"] if gold else [])
    frame = pd.DataFrame.from_records(list(qs.values_list(*fields)), columns=fields)
    return frame.rename(columns={
        "clip_id": "clip", "listener_id": "listener", "clip__gold_min": "gold_min", "clip__gold_max": "gold_max",
    })


def clean_clip_table(test: ListeningTest) -> pd.DataFrame:
    return stats.clip_table(ratings_frame(test))


def completion(test: ListeningTest, table: pd.DataFrame | None = None) -> list[tuple[int, int]]:
    """(number of clean ratings, number of regular clips with that many) for 0..K."""
    k = test.pool.required_per_item
    table = clean_clip_table(test) if table is None else table
    counts = {n: 0 for n in range(k + 1)}
    regular = list(test.clips.regular().values_list("pk", flat=True))
    for pk in regular:
        n = int(table["n"].get(pk, 0)) if not table.empty else 0
        counts[min(n, k)] += 1
    return sorted(counts.items())


def qc_by_listener(test: ListeningTest) -> dict[int, ListenerQC]:
    """QC over every listener's ratings (excluded ones included, so their flags stay visible)."""
    return listener_qc(ratings_frame(test, clean=False), ratings_frame(test, clean=False, gold=True))


@dataclass
class ListenerRow:
    user: object
    regular: int
    gold: int
    qc: ListenerQC | None
    excluded: bool

    @property
    def flag_labels(self) -> list[str]:
        return [FLAG_LABELS[f] for f in self.qc.flags] if self.qc else []


def listener_rows(test: ListeningTest, qc: dict | None = None) -> list[ListenerRow]:
    from apps.accounts.models import User

    qc = qc_by_listener(test) if qc is None else qc
    excluded = excluded_listener_ids(test)
    counts = (
        Rating.objects.filter(clip__test=test)
        .values("listener_id")
        .annotate(regular=Count("pk", filter=Q(clip__gold_min__isnull=True)), gold=Count("pk", filter=Q(clip__gold_min__isnull=False)))
    )
    by_id = {row["listener_id"]: row for row in counts}
    ids = set(by_id) | excluded
    users = {u.pk: u for u in User.objects.filter(pk__in=ids)}
    rows = [
        ListenerRow(
            user=users[pk], regular=by_id.get(pk, {}).get("regular", 0), gold=by_id.get(pk, {}).get("gold", 0),
            qc=qc.get(pk), excluded=pk in excluded,
        )
        for pk in ids
    ]
    return sorted(rows, key=lambda r: (not (r.qc and r.qc.flagged), r.user.username))


def summary(test: ListeningTest) -> dict:
    """What GET /api/listening/tests/{id}/summary/ returns."""
    ratings = ratings_frame(test)
    table = stats.clip_table(ratings)
    k = test.pool.required_per_item
    rows = listener_rows(test)
    return {
        "id": test.pk,
        "name": test.name,
        "clips": test.clips.regular().count(),
        "gold_clips": test.clips.gold().count(),
        "ratings": int(len(ratings)),
        "complete_clips": int((table["n"] >= k).sum()) if not table.empty else 0,
        "ratings_per_clip": k,
        "alpha_ordinal": stats.alpha_ordinal(ratings),
        "flagged_listeners": [
            {"username": r.user.username, "flags": list(r.qc.flags), "excluded": r.excluded}
            for r in rows if r.qc and r.qc.flagged
        ],
        "excluded_listeners": sorted(r.user.username for r in rows if r.excluded),
    }


GROUP_FIELDS = (("source_type", "Source type"), ("style", "Style"), ("category", "Category"), ("system", "System"))


def dashboard(test: ListeningTest) -> dict:
    from apps.listening import figures

    ratings = ratings_frame(test)
    table = stats.clip_table(ratings)
    clips = pd.DataFrame.from_records(
        list(test.clips.regular().values_list("pk", *[f for f, _ in GROUP_FIELDS])),
        columns=["clip", *[f for f, _ in GROUP_FIELDS]],
    ).set_index("clip")
    groups = []
    for field, label in GROUP_FIELDS:
        rows = stats.group_cis(ratings, clips[field]) if not clips.empty else []
        if rows:
            groups.append({
                "field": field, "label": label, "rows": rows,
                "svg": figures.ci_bars_svg([(v, ci.mean, ci.ci95) for v, ci, _ in rows], title=f"MOS by {label.lower()}"),
            })
    overall = stats.t_ci95(table["mos_mean"]) if not table.empty else stats.t_ci95([])
    hist = stats.histogram(table["mos_mean"], bins=stats.MOS_BINS) if not table.empty else []
    split_counts = dict(
        test.clips.regular().values_list("split").annotate(n=Count("pk")).values_list("split", "n")
    )
    return {
        "completion": completion(test, table),
        "ratings": int(len(ratings)),
        "clips": int(len(clips)),
        "alpha": stats.alpha_ordinal(ratings),
        "overall": overall,
        "histogram_svg": figures.histogram_svg(hist, title="Histogram of clip MOS", xlabel="clip MOS"),
        "groups": groups,
        "listeners": listener_rows(test),
        "split_counts": split_counts,
        "speaker_disjoint": test.clips.regular().filter(speaker_disjoint=True).count(),
        "text_disjoint": test.clips.regular().filter(text_disjoint=True).count(),
    }


# --- the listener's own view ----------------------------------------------------------------------------


def clips_left(test: ListeningTest, listener, *, now=None) -> int:
    """How many clips this listener could still be given (an upper bound: others may fill slots first),
    counting the clip they hold right now."""
    now = now or timezone.now()
    left = queue_selectors.remaining_for_worker(test.pool, listener, now=now)
    return left + (1 if queue_selectors.live_assignment(test.pool, listener, now=now) else 0)


def rated_by(test: ListeningTest, listener) -> int:
    return Rating.objects.filter(clip__test=test, listener=listener).count()


def tests_for_listener(listener) -> list[tuple[ListeningTest, int, int]]:
    """(test, clips left, clips rated) for every test with something left or already rated."""
    out = []
    for test in ListeningTest.objects.select_related("pool"):
        left, done = clips_left(test, listener), rated_by(test, listener)
        if left or done:
            out.append((test, left, done))
    return out


# --- predictor evaluation -------------------------------------------------------------------------------

SUBSETS = (
    ("all", "all clips"),
    ("train", "train"),
    ("validation", "validation"),
    ("test", "test"),
    ("test_speaker_disjoint", "test, speaker-disjoint"),
    ("test_text_disjoint", "test, text-disjoint"),
)


def _subset_mask(frame: pd.DataFrame, subset: str) -> pd.Series:
    if subset == "all":
        return pd.Series(True, index=frame.index)
    if subset == "test_speaker_disjoint":
        return (frame["split"] == "test") & frame["speaker_disjoint"]
    if subset == "test_text_disjoint":
        return (frame["split"] == "test") & frame["text_disjoint"]
    return frame["split"] == subset


def evaluation_frame(test: ListeningTest, predictors) -> pd.DataFrame:
    """One row per rated regular clip: human MOS, split, disjoint flags and one column per predictor."""
    from apps.listening.models import Prediction

    table = clean_clip_table(test)
    clips = pd.DataFrame.from_records(
        list(test.clips.regular().values_list("pk", "split", "speaker_disjoint", "text_disjoint")),
        columns=["clip", "split", "speaker_disjoint", "text_disjoint"],
    ).set_index("clip")
    frame = clips.join(table["mos_mean"].rename("human"), how="inner")
    for predictor in predictors:
        scores = dict(Prediction.objects.filter(predictor=predictor).values_list("clip_id", "score"))
        frame[predictor.name] = frame.index.map(scores)
    return frame


def evaluate_predictors(test: ListeningTest, predictors, *, compare: tuple | None = None, seed: int = 0,
                        resamples: int | None = None) -> dict:
    """SRCC/LCC per split and disjoint subset, raw and after the affine calibration fitted on validation
    (clipped to [1, 5]), a calibration scatter on test, and optionally the paired bootstrap of the test SRCC
    difference between two predictors (`compare` = (a, b) predictor objects)."""
    from django.conf import settings

    from apps.listening import evaluation, figures

    frame = evaluation_frame(test, predictors)
    results = []
    for predictor in predictors:
        column = frame[predictor.name]
        have = frame[column.notna()]
        val = have[have["split"] == "validation"]
        calibration = evaluation.fit_affine(val[predictor.name], val["human"]) if len(val) >= 2 else None
        rows = []
        for key, label in SUBSETS:
            part = have[_subset_mask(have, key)]
            raw = evaluation.correlations(part["human"], part[predictor.name])
            cal = evaluation.correlations(part["human"], calibration.apply(part[predictor.name])) if calibration else None
            rows.append({"key": key, "label": label, "raw": raw, "calibrated": cal})
        test_part = have[have["split"] == "test"]
        points = []
        if calibration is not None and len(test_part):
            points = list(zip(calibration.apply(test_part[predictor.name]).tolist(), test_part["human"].tolist(), strict=True))
        results.append({
            "predictor": predictor, "covered": int(len(have)), "missing": int(len(frame) - len(have)),
            "calibration": calibration, "rows": rows,
            "scatter_svg": figures.scatter_svg(
                points, title=f"{predictor.name}: calibrated prediction vs human MOS (test)",
                xlabel="calibrated prediction", ylabel="human MOS",
            ) if points else "",
        })
    bootstrap = None
    if compare is not None:
        a, b = compare
        test_part = frame[(frame["split"] == "test") & frame[a.name].notna() & frame[b.name].notna()]
        bootstrap = evaluation.paired_bootstrap_srcc(
            test_part["human"], test_part[a.name], test_part[b.name],
            resamples=resamples or settings.LISTENING_BOOTSTRAP_RESAMPLES, seed=seed,
        )
    return {"results": results, "bootstrap": bootstrap, "clips": int(len(frame)),
            "has_splits": bool((frame["split"] != "").any()) if len(frame) else False}
