"""Reads of the listening app: rating frames, the clean set, the dashboard, the summary and the listener's
own counts. The clean set leaves out gold clips and the ratings of excluded listeners."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from django.conf import settings
from django.db.models import Count, Exists, OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext

from apps.accounts.models import User
from apps.audio.models import AudioPlayback
from apps.core import sql as core_sql
from apps.core.errors import NotFound
from apps.listening import figures, sql, stats
from apps.listening.models import Clip, ClipServing, Consent, ListeningTest, Prediction, Rating, TestStatus
from apps.listening.qc import FLAG_LABELS, ListenerQC, listener_qc
from apps.queues import selectors as queue_selectors
from apps.queues.models import PoolExclusion


def excluded_listener_ids(test: ListeningTest) -> set[int]:
    return set(test.pool.excluded_workers.values_list("pk", flat=True))


def frame_of(qs, columns: list[str]) -> pd.DataFrame:
    """A values_list QuerySet read straight into a DataFrame: the ORM builds the SQL, the cursor's rows go
    to pandas as they are (no model instances, no per-row dicts). Only for fields without converters."""
    return pd.DataFrame(core_sql.rows_of(qs), columns=columns)


RATING_COLUMNS = ["clip", "listener", "score", "gold_min", "gold_max"]


@dataclass
class RatingSet:
    """Every rating of a test, read in one query. `regular` holds every listener's ratings of regular clips
    (excluded listeners too: QC judges them), `gold` the gold-clip ratings; `clean` is the clean set."""

    regular: pd.DataFrame
    gold: pd.DataFrame
    excluded: set[int]

    @property
    def clean(self) -> pd.DataFrame:
        return self.regular[~self.regular["listener"].isin(self.excluded)] if self.excluded else self.regular


def rating_set(test: ListeningTest) -> RatingSet:
    frame = frame_of(
        Rating.objects.filter(clip__test=test).values_list("clip_id", "listener_id", "score", "clip__gold_min", "clip__gold_max"),
        RATING_COLUMNS,
    )
    is_gold = frame["gold_min"].notna()
    return RatingSet(
        regular=frame.loc[~is_gold, ["clip", "listener", "score"]].reset_index(drop=True),
        gold=frame[is_gold].reset_index(drop=True),
        excluded=excluded_listener_ids(test),
    )


def ratings_frame(test: ListeningTest, *, clean: bool = True, gold: bool = False) -> pd.DataFrame:
    """One row per rating: clip (pk), listener (user id), score. Regular clips, or gold clips with
    gold_min/gold_max when gold=True. clean=True leaves out excluded listeners."""
    qs = Rating.objects.filter(clip__test=test, clip__gold_min__isnull=not gold)
    if clean:
        qs = qs.exclude(listener_id__in=excluded_listener_ids(test))
    fields = ["clip_id", "listener_id", "score"] + (["clip__gold_min", "clip__gold_max"] if gold else [])
    return frame_of(qs.values_list(*fields), RATING_COLUMNS[:len(fields)])


def clean_clip_table(test: ListeningTest) -> pd.DataFrame:
    return stats.clip_table(ratings_frame(test))


def completion(test: ListeningTest, table: pd.DataFrame | None = None, regular: pd.Index | None = None) -> list[tuple[int, int]]:
    """(number of clean ratings, number of regular clips with that many) for 0..K. `regular`: the regular
    clips' pks when the caller has them."""
    k = test.pool.required_per_item
    table = clean_clip_table(test) if table is None else table
    if regular is None:
        regular = pd.Index(test.clips.regular().values_list("pk", flat=True))
    n = table["n"].reindex(regular, fill_value=0).clip(upper=k) if len(regular) else pd.Series(dtype=int)
    counts = n.value_counts()
    return [(i, int(counts.get(i, 0))) for i in range(k + 1)]


def qc_by_listener(test: ListeningTest, ratings: RatingSet | None = None) -> dict[int, ListenerQC]:
    """QC over every listener's ratings (excluded ones included, so their flags stay visible)."""
    ratings = rating_set(test) if ratings is None else ratings
    return listener_qc(ratings.regular, ratings.gold)


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


def listener_rows(test: ListeningTest, ratings: RatingSet | None = None) -> list[ListenerRow]:
    ratings = rating_set(test) if ratings is None else ratings
    qc = qc_by_listener(test, ratings)
    regular = ratings.regular["listener"].value_counts()
    gold = ratings.gold["listener"].value_counts()
    ids = {int(pk) for pk in regular.index} | {int(pk) for pk in gold.index} | ratings.excluded
    users = {u.pk: u for u in User.objects.filter(pk__in=ids)}
    rows = [
        ListenerRow(
            user=users[pk], regular=int(regular.get(pk, 0)), gold=int(gold.get(pk, 0)),
            qc=qc.get(pk), excluded=pk in ratings.excluded,
        )
        for pk in ids
    ]
    return sorted(rows, key=lambda r: (not (r.qc and r.qc.flagged), r.user.username))


def summary(test: ListeningTest) -> dict:
    """What GET /api/listening/tests/{id}/summary/ returns."""
    ratings = rating_set(test)
    clean = ratings.clean
    table = stats.clip_table(clean)
    k = test.pool.required_per_item
    rows = listener_rows(test, ratings)
    counts = test.clips.aggregate(regular=Count("pk", filter=Q(gold_min__isnull=True)), gold=Count("pk", filter=Q(gold_min__isnull=False)))
    return {
        "id": test.pk,
        "name": test.name,
        "clips": counts["regular"],
        "gold_clips": counts["gold"],
        "ratings": int(len(clean)),
        "complete_clips": int((table["n"] >= k).sum()) if not table.empty else 0,
        "ratings_per_clip": k,
        "alpha_ordinal": stats.alpha_ordinal(clean),
        "flagged_listeners": [
            {"username": r.user.username, "flags": list(r.qc.flags), "excluded": r.excluded}
            for r in rows if r.qc and r.qc.flagged
        ],
        "excluded_listeners": sorted(r.user.username for r in rows if r.excluded),
    }


GROUP_FIELDS = (("source_type", "Source type"), ("style", "Style"), ("category", "Category"), ("system", "System"))
CLIP_COLUMNS = ["clip", *[f for f, _ in GROUP_FIELDS], "split", "speaker_disjoint", "text_disjoint"]


def dashboard(test: ListeningTest) -> dict:
    """Everything the admin dashboard shows, from three reads: the ratings, the regular clips' metadata and
    the listeners' names."""
    ratings = rating_set(test)
    clean = ratings.clean
    table = stats.clip_table(clean)
    clips = frame_of(test.clips.regular().values_list("pk", *CLIP_COLUMNS[1:]), CLIP_COLUMNS).set_index("clip")
    groups = []
    for field, label in GROUP_FIELDS:
        rows = stats.group_cis(clean, clips[field], table) if not clips.empty else []
        if rows:
            groups.append({
                "field": field, "label": label, "rows": rows,
                "svg": figures.ci_bars_svg([(g.value, g.ratings.mean, g.ratings.ci95) for g in rows], title=f"MOS by {label.lower()}"),
            })
    overall = stats.t_ci95(table["mos_mean"]) if not table.empty else stats.t_ci95([])
    hist = stats.histogram(table["mos_mean"], bins=stats.MOS_BINS) if not table.empty else []
    in_test = clips["split"] == "test"
    return {
        "completion": completion(test, table, clips.index),
        "ratings": int(len(clean)),
        "clips": int(len(clips)),
        "alpha": stats.alpha_ordinal(clean),
        "overall": overall,
        "histogram_svg": figures.histogram_svg(hist, title="Histogram of clip MOS", xlabel="clip MOS"),
        "groups": groups,
        "listeners": listener_rows(test, ratings),
        "split_counts": {str(k): int(v) for k, v in clips["split"].value_counts().sort_index().items()},
        "speaker_disjoint": int((in_test & clips["speaker_disjoint"].astype(bool)).sum()),
        "text_disjoint": int((in_test & clips["text_disjoint"].astype(bool)).sum()),
    }


# --- the listener's own view ----------------------------------------------------------------------------


def clips_left(test: ListeningTest, listener, *, now=None) -> int:
    """How many clips this listener could still be given (an upper bound: others may fill slots first),
    counting the clip they hold right now."""
    now = now or timezone.now()
    left = queue_selectors.remaining_for_worker(test.pool, listener, now=now)
    return left + (1 if queue_selectors.live_assignment(test.pool, listener, now=now) else 0)


def tests_with_consent(listener):
    """Tests with their pool and whether this listener agreed to their instructions (`consented`, which
    services.require_consent reads), in one query."""
    return ListeningTest.objects.select_related("pool").annotate(
        consented=Exists(Consent.objects.filter(test=OuterRef("pk"), listener=listener))
    )


def played_since_served(clip: Clip, listener) -> bool:
    """The listener's player reported the clip's audio played to its end since the clip was served to them
    (an end reported in another test with the same audio does not unlock this one)."""
    served = ClipServing.objects.filter(clip=clip, listener=listener).values("served_at")[:1]
    return AudioPlayback.objects.filter(asset_id=clip.asset_id, user=listener, last_ended_at__gte=Subquery(served)).exists()


def clip_for_listener(pk: int, listener) -> Clip:
    """A clip with its test, the test's pool and whether this listener consented to the test (NotFound if
    there is no such clip). One prepared query, as it is on every rating's path: the clip carries its
    keys, the test and pool their columns but JSON ones; anything else loads if asked for."""
    clip = sql.clip_for_listener(pk, listener.pk)
    if clip is None:
        raise NotFound(gettext("No such clip."), code="not_found")
    return clip


def listener_progress(test: ListeningTest, listener) -> dict:
    """{"rated": clips this listener rated in the test, "clips": clips in the test}. The rating response
    carries it, so it is on the rating cycle's path: "rated" counts the listener's counted submissions in the
    test's pool (an index range; a rating and its submission are written together, so the two are the same
    number but for an excluded listener, whose submissions were invalidated); the number of clips is the
    test's, fixed once its import finished (clips_expected)."""
    return {"rated": queue_selectors.submitted_by(test.pool_id, listener), "clips": test.clips_expected}


def rated_by(test: ListeningTest, listener) -> int:
    return Rating.objects.filter(clip__test=test, listener=listener).count()


def tests_for_listener(listener) -> list[tuple[ListeningTest, int, int]]:
    """(test, clips left, clips rated) for every test with something left or already rated."""
    out = []
    for test in ListeningTest.objects.open_to(listener).select_related("pool"):
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
    # Here, not at the top: evaluation imports scipy, which start-up leaves out (tests/core/test_startup.py).
    from apps.listening import evaluation

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
    bootstrap, bootstrap_error = None, ""
    if compare is not None:
        a, b = compare
        test_part = frame[(frame["split"] == "test") & frame[a.name].notna() & frame[b.name].notna()]
        try:
            bootstrap = evaluation.paired_bootstrap_srcc(
                test_part["human"], test_part[a.name], test_part[b.name],
                resamples=resamples or settings.LISTENING_BOOTSTRAP_RESAMPLES, seed=seed,
            )
        except evaluation.NoInterval as exc:
            bootstrap_error = (
                f"{a.name} against {b.name} on the {len(test_part)} test clip{'s' if len(test_part) != 1 else ''} "
                f"with both predictions: {exc}."
            )
    return {"results": results, "bootstrap": bootstrap, "bootstrap_error": bootstrap_error, "clips": int(len(frame)),
            "has_splits": bool((frame["split"] != "").any()) if len(frame) else False}


def pipeline_counts() -> dict:
    """The MOS workflow for the admin's home page, in three queries whatever the number of tests: regular
    (not gold) clips imported and in published tests, and those rated by their five listeners (`complete`);
    ratings that count (not by an excluded listener); listeners excluded by quality control."""
    clips = Clip.objects.regular().aggregate(
        imported=Count("id"), published=Count("id", filter=Q(test__status=TestStatus.PUBLISHED)),
        complete=Count("id", filter=Q(work_item__complete=True)))
    excluded = PoolExclusion.objects.filter(worker=OuterRef("listener"), pool=OuterRef("clip__test__pool"))
    clips["ratings"] = Rating.objects.exclude(Exists(excluded)).count()
    clips["excluded"] = PoolExclusion.objects.filter(pool__kind="listening").count()
    return clips


def unreachable_by_test(*, limit: int = 10) -> list[tuple[ListeningTest, int]]:
    """Published tests with clips that cannot reach their count of distinct listeners, with how many (one
    reading of the queue engine per published test, at most `limit` tests)."""
    found = []
    for test in ListeningTest.objects.filter(status=TestStatus.PUBLISHED).select_related("pool")[:limit]:
        if stuck := queue_selectors.unreachable_items(test.pool):
            found.append((test, len(stuck)))
    return found
