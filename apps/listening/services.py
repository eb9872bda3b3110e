"""Writes of the listening app: importing a test, the listener's claim/playback/rating, exclusion, splits
and predictor uploads. Each multi-row write is one function and one transaction (an import job's clips:
one per batch, under a test that stays "importing" until the last one; see import_listening_test).

The five-distinct-listeners guarantee comes from apps.queues: a clip is a WorkItem of the test's pool;
`claim_next` leases it, `lease_for_submission` + `mark_submitted` settle it under the item's row lock in
the same transaction that stores the Rating; on PostgreSQL a rating's common case does all of that in one
statement (queues.submit_in_one_statement), under the same lock."""

from __future__ import annotations

import csv
import io
import random
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import IntegrityError, connection, transaction
from django.db.models import F, OuterRef, Subquery
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from pydantic import Field, ValidationInfo, field_validator, model_validator

from apps.accounts.models import User
from apps.accounts.roles import Role
from apps.audio import playback
from apps.audio.models import AudioPlayback
from apps.audio.store import Staging, atomic_import, store_validated
from apps.core.actors import actor
from apps.core.bulk import cycle_collection_paused, insert_rows, refresh_statistics
from apps.core.errors import Conflict, FileRefused, Forbidden, InvalidInput, NotFound
from apps.core.tabular import RowModel, read_table
from apps.instructions import defaults as default_instructions
from apps.instructions import services as instructions
from apps.jobs.services import abandon_job
from apps.listening import splits as splitting
from apps.listening import sql
from apps.listening.manifest import read_manifest
from apps.listening.models import (
    Audience,
    Clip,
    ClipServing,
    Consent,
    ListeningTest,
    Prediction,
    Predictor,
    Rating,
    TestStatus,
)
from apps.listening.selectors import clean_clip_table
from apps.queues import services as queues
from apps.queues.models import Assignment, WorkItem

# --- import ---------------------------------------------------------------------------------------------

# Clips per committed batch: a short transaction (a fraction of a second), one progress write, and few
# enough round trips per clip that a 100,000-clip import is not mostly per-batch overhead.
IMPORT_BATCH = 250


@cycle_collection_paused()
def import_listening_test(*, name: str, manifest: Path, acting_user=None, progress=None) -> ListeningTest:
    """Create a test from a CSV/JSONL manifest. Every row and its audio are checked first: a bad row
    (reported with its line) refuses the manifest and nothing is stored.

    Without `progress` (the command line, the demo) the import is one transaction: all or nothing, audio
    files included. With a job's `progress` it is resumable: the test is created "importing" (no listener
    sees it, it cannot be published) and its clips are stored in committed batches of IMPORT_BATCH, each
    moving the bar; the last batch makes it a draft. Run again for the same job (resume, or a worker taking
    over a lost one) it skips what is stored: the unique (test, clip_id) key makes a clip stored twice
    impossible. A cancel stops it between files or batches."""
    name = name.strip()
    if not name:
        raise InvalidInput(gettext("the test needs a name"), field="name")
    # Each file is staged for storage as it is checked, so storing it is a rename, not a second read, hash
    # and write; what is not stored (a refused manifest, audio stored already, a cancel) is discarded.
    with Staging() as staging:
        if progress is None:
            rows = read_manifest(Path(manifest), stage=staging)
            with atomic_import():  # all or nothing, the stored files included
                test = _begin_import(name=name, rows=rows, acting_user=acting_user)
                # All the audio at once (one lookup, one flush to disk, one insert), then the clips naming
                # it: one batch, as nothing commits before the end anyway.
                _store_batch(test, _in_random_order(rows), assets=_store_audio(rows, staged=staging, retry=False))
                return _finish_import(test)
        job = progress.job
        test = ListeningTest.objects.filter(import_job=job).first()
        stored = set(test.clips.values_list("clip_id", flat=True)) if test is not None else set()
        rows = read_manifest(Path(manifest), progress=progress, stored=stored, stage=staging)
        if test is not None and not test.is_importing:
            return test  # an earlier run finished it (its worker died before the job row said so)
        test = test or _begin_import(name=name, rows=rows, acting_user=acting_user, job=job)
        _store_clips(test, [r for r in rows if r.clip_id not in stored], staged=staging, progress=progress)
        return _finish_import(test)


def _begin_import(*, name: str, rows, acting_user=None, job=None) -> ListeningTest:
    taken = Conflict(f"a listening test named {name!r} already exists; choose another name", code="name_taken")
    if ListeningTest.objects.filter(name=name).exists():
        raise taken
    try:
        with transaction.atomic():
            pool = queues.create_pool(
                name=f"listening: {name}", kind="listening",
                required_per_item=settings.LISTENING_RATINGS_PER_CLIP, lease_seconds=settings.LISTENING_LEASE_SECONDS,
            )
            return ListeningTest.objects.create(
                name=name, pool=pool, status=TestStatus.IMPORTING, clips_expected=len(rows), import_job=job,
                created_by=actor(acting_user),
            )
    except IntegrityError:  # the unique name, taken by a concurrent import
        raise taken from None


def _in_random_order(rows) -> list:
    """Clip ids reach listeners (API, form URLs): clips are stored in random order so an id says nothing
    about the manifest's order (often grouped by system or source type), nor whether a clip is gold."""
    rows = list(rows)
    random.SystemRandom().shuffle(rows)
    return rows


def _store_clips(test: ListeningTest, rows, *, staged: Staging, progress=None) -> None:
    """Store the rows in batches of IMPORT_BATCH, each in a transaction of its own that moves the job's
    bar (`progress`, if any); each batch's audio is stored ahead of its transaction."""
    todo = _in_random_order(rows)
    # The bar (apps.listening.manifest.read_manifest) counts this run's file checks, then the rows to store.
    to_store = len(todo)
    checked = progress.job.total - to_store if progress is not None else 0
    stored = 0
    while todo:
        chunk, todo = todo[:IMPORT_BATCH], todo[IMPORT_BATCH:]
        try:
            # The audio is stored ahead of the batch, outside its transaction: storing files (a flush to
            # disk, renames, a copy of what was not staged) is the slow part, and no lock but the stored
            # contents' own is held meanwhile (store_validated), so a cancel request or a page never waits
            # for it. An asset is whole on its own and found again by its content hash: one stored ahead of
            # a batch that then fails is reused by the next run.
            assets = _store_audio(chunk, staged=staged)
            with transaction.atomic():
                if progress is not None:
                    # First, fenced by this run's claim: the count commits with the clips it counts, a run
                    # that lost its claim writes nothing (LeaseLost), and the job row stays locked until
                    # the commit, so no other run can take the job over halfway through a batch.
                    progress.save_done(checked + stored + len(chunk),
                                       message=f"Step 2 of 2: stored {stored + len(chunk)} of {to_store} clips")
                _store_batch(test, chunk, assets=assets)
        except IntegrityError:
            # Another run stored some of these meanwhile (the unique keys refused them): keep its clips
            # and go on with the rest; if it stored none of them, the conflict is something else.
            there = set(test.clips.filter(clip_id__in=[r.clip_id for r in chunk]).values_list("clip_id", flat=True))
            if not there:
                raise
            todo = [r for r in chunk if r.clip_id not in there] + todo
            stored += len(there)  # done, by the other run
            continue
        stored += len(chunk)
        if progress is not None:
            progress.check_cancelled()


def _store_audio(rows, *, staged: Staging, retry: bool = True) -> dict:
    """Each distinct file once, from the check read_manifest made (no second decode): one lookup of what is
    stored already and one bulk insert (store_validated, which takes the contents' locks in the order of
    their hashes, so two imports storing the same files wait for each other and never deadlock). `retry`,
    outside a transaction: a file another import stored meanwhile is found by the second lookup."""
    files = [(r.audio_path, r.audio_info, r.audio_path.name) for r in rows]
    try:
        return store_validated(files, staged=staged)
    except IntegrityError:
        if not retry:
            raise
        return store_validated(files, staged=staged)


_CLIP_COLUMNS = ("test_id", "work_item_id", "clip_id", "asset_id", "audio_name", "text", "speaker", "source_type",
                 "style", "category", "system", "gold_min", "gold_max")


def _store_batch(test: ListeningTest, rows, *, assets: dict) -> None:
    regular = [r for r in rows if not r.is_gold]
    gold = [r for r in rows if r.is_gold]
    items = iter(queues.add_items(test.pool, len(regular)))
    # Gold clips go to every listener once, mixed into their own random order; they take no K slots.
    gold_items = iter(queues.add_items(test.pool, len(gold), capacity=WorkItem.UNLIMITED))
    # One INSERT of arrays (apps.core.bulk): a Clip instance per row would cost more than the insert.
    insert_rows(Clip, _CLIP_COLUMNS, [
        (test.pk, next(gold_items if row.is_gold else items), row.clip_id, assets[row.audio_info.sha256].pk,
         row.audio, row.text, row.speaker, row.source_type, row.style, row.category, row.system, row.gold_min,
         row.gold_max)
        for row in rows
    ])


def _finish_import(test: ListeningTest) -> ListeningTest:
    """Every clip is in: the test becomes a draft the admin can publish."""
    stored = test.clips.count()
    if stored != test.clips_expected:
        raise RuntimeError(f"{test.name}: {stored} of {test.clips_expected} clips stored; the import is not complete")
    ListeningTest.objects.filter(pk=test.pk, status=TestStatus.IMPORTING).update(status=TestStatus.DRAFT)
    refresh_statistics(Clip, WorkItem)
    test.refresh_from_db()
    return test


def discard_import(*, test: ListeningTest, acting_user=None) -> None:
    """Drop an import that did not finish: the test, its clips and work items, and the uploaded bundle.
    Its job ends for good (its page offers uploading again). Refused while the job runs: cancel it first.
    The audio files stay: they are stored once by content, and an upload again finds them."""
    if not test.is_importing:
        raise Conflict(gettext(
            "%(name)s is imported completely; there is nothing to discard"
        ) % {"name": test.name}, code="import_complete")
    job = test.import_job
    with transaction.atomic():
        if job is not None:
            who = f" by {acting_user.username}" if actor(acting_user) else ""
            ended = abandon_job(job=job, message=f"Discarded{who}", result={
                "errors": [f"The unfinished import was discarded{who}: nothing of it is kept. Upload the bundle again to import it."],
            })
            if not ended:
                raise Conflict(gettext("The import is still running; cancel it first, then discard it."), code="import_running")
            bundle = job.params.get("bundle")
            if bundle:
                transaction.on_commit(lambda: default_storage.delete(bundle))
        pool = test.pool
        test.delete()  # its clips (and their servings, consents: none, it was never open) go with it
        pool.delete()  # and the work items


# --- the listener's flow --------------------------------------------------------------------------------


def record_consent(*, test: ListeningTest, acting_user) -> Consent:
    """The listener agreed to the test's instructions: the version in force is the one agreed to."""
    consent, _ = Consent.objects.get_or_create(test=test, listener=acting_user,
                                               defaults={"instructions": instructions.pin(test, default=default_instructions.MOS)})
    return consent


def test_instructions(test: ListeningTest):
    return instructions.current(test, default=default_instructions.MOS)


def revise_instructions(*, test: ListeningTest, text_ko: str, text_en: str = "", acting_user=None):
    """The admin sets the test's instructions (a new version once anyone agreed or rated under the old)."""
    return instructions.revise(owner=test, text_ko=text_ko, text_en=text_en, acting_user=acting_user,
                               default=default_instructions.MOS, answers=Rating.objects.filter(clip__test=test),
                               answered_at="rated_at")


def require_consent(*, test: ListeningTest, acting_user) -> None:
    """Clips go only to a listener who agreed to the test's instructions on its page; the API asks this
    before it leases a clip, as the rating page does (a test not open to them stays a 404 in next_assignment)."""
    consented = getattr(test, "consented", None)  # set by selectors.tests_with_consent / clip_for_listener
    if consented is None:
        consented = Consent.objects.filter(test=test, listener=acting_user).exists()
    if test.is_open_to(acting_user) and not consented:
        raise Forbidden(
            gettext(
                "You have not agreed to this test's instructions: read them and agree at %(url)s, then ask "
                "for clips again."
            ) % {"url": reverse('listening:start', args=[test.pk])},
            code="consent_required",
        )


def publish_test(*, test: ListeningTest, acting_user, audience: str = Audience.EVERYONE, listeners=()) -> ListeningTest:
    """Open a draft test (or change who a published one is for): to every listener, or to the listeners
    named. Listeners see only published tests meant for them."""
    if test.is_importing:
        raise Conflict(gettext(
            "%(name)s is not imported completely yet; resume or discard its import first"
        ) % {"name": test.name}, code="import_incomplete")
    if audience not in Audience.values:
        raise InvalidInput(gettext(
            "audience must be one of %(values)s, not %(audience)r"
        ) % {"values": ', '.join(Audience.values), "audience": audience}, field="audience")
    listeners = list(listeners)
    if audience == Audience.NAMED:
        if not listeners:
            raise InvalidInput(gettext("name at least one listener, or open the test to everyone"), field="listeners")
        not_listeners = [u.username for u in listeners if not u.has_role(Role.LISTENER)]
        if not_listeners:
            raise InvalidInput(gettext(
                "not listeners: %(not_listeners)s"
            ) % {"not_listeners": ', '.join(not_listeners)}, field="listeners")
    with transaction.atomic():
        test.status, test.audience = TestStatus.PUBLISHED, audience
        test.published_at = test.published_at or timezone.now()
        test.save(update_fields=["status", "audience", "published_at"])
        test.listeners.set(listeners if audience == Audience.NAMED else [])
    return test


def next_assignment(*, test: ListeningTest, acting_user, now: datetime | None = None) -> Assignment | None:
    """The listener's current clip (their live lease) or a newly leased one; None when nothing is left.
    Records when the clip was first served to them (see report_playback)."""
    served = next_clip(test=test, acting_user=acting_user, now=now)
    return served[0] if served is not None else None


def next_clip(*, test: ListeningTest, acting_user, now: datetime | None = None) -> tuple[Assignment, Clip] | None:
    """next_assignment with its clip (and the clip's audio asset) read in the same query: (lease, clip)."""
    if not test.is_open_to(acting_user):
        raise NotFound(gettext("There is no listening test here for you."), code="test_not_open")
    assignment = queues.claim_next(test.pool, acting_user, now=now)
    if assignment is None:
        return None
    return assignment, _serve(assignment.item_id, acting_user, now or timezone.now())


def _serve(item_id: int, listener, now: datetime) -> Clip:
    """The leased item's clip and its audio asset, noting when it was first served to the listener (a
    repeated `next` for the same lease keeps that): one statement, committed on its own. The clip and asset
    carry what a listener's answer and the playback gate read; their other fields load if asked for."""
    if connection.vendor != "postgresql":  # SQLite (the demo) has no INSERT in WITH: two statements
        clip = Clip.objects.select_related("asset").get(work_item_id=item_id)
        ClipServing.objects.bulk_create([ClipServing(clip=clip, listener=listener, served_at=now)], ignore_conflicts=True)
        return clip
    return sql.serve_clip(item_id, listener.pk, now)


def next_clip_after_rating(*, test: ListeningTest, acting_user, now: datetime | None = None) -> tuple[Assignment, Clip] | None:
    """The clip a rating response hands on (so an API client needs one call per clip): next_clip, or None
    when nothing is left or the test no longer takes this listener's ratings (it was closed, or they never
    agreed). The new clip's serving time starts now, so its rating meets the same playback gate as one
    fetched with `next`."""
    try:
        require_consent(test=test, acting_user=acting_user)
        return next_clip(test=test, acting_user=acting_user, now=now)
    except (NotFound, Forbidden):
        return None


@queues.register_eligible_workers("listening")
def eligible_listeners(pool) -> list[int]:
    """Who may rate the test's clips: nobody while it is a draft, then every listener or the named ones."""
    test = ListeningTest.objects.filter(pool=pool).first()
    if test is None or not test.is_published:
        return []
    if test.audience == Audience.NAMED:
        return list(test.listeners.filter(is_active=True).values_list("pk", flat=True))
    return list(User.objects.with_role(Role.LISTENER).filter(is_active=True).values_list("pk", flat=True))


def _has_live_lease(clip: Clip, listener, now: datetime) -> bool:
    return Assignment.objects.live(now).filter(item_id=clip.work_item_id, worker=listener).exists()


def report_playback(*, clip: Clip, acting_user, now: datetime | None = None) -> AudioPlayback:
    """The player says the clip played to its end. Only for a clip the listener holds a live lease on, and
    counted from when the clip was served to them (apps.audio.playback.report_playback keeps the record)."""
    now = now or timezone.now()
    if not _has_live_lease(clip, acting_user, now):
        if Rating.objects.filter(clip=clip, listener=acting_user).exists():
            raise Conflict(gettext("You have already rated this clip."), code="already_rated")
        raise Conflict(gettext("This clip is not assigned to you (or your time for it ran out)."), code="no_lease")
    served = ClipServing.objects.filter(clip=clip, listener=acting_user).values_list("served_at", flat=True).first()
    if served is None:  # never the case with a live lease; an unserved clip must not fall back on other servings
        playback.require_time_to_play(duration_seconds=clip.asset.duration_seconds, served_at=None, now=now)
    return playback.report_playback(asset=clip.asset, acting_user=acting_user, now=now, served_at=served)


def rate_clip(*, clip: Clip, acting_user, score: int, now: datetime | None = None) -> tuple[Rating, bool]:
    """Store the listener's score for the clip; returns (rating, created).

    Idempotent: the same score again returns the stored rating (created False); a different second score is
    refused. Refused too without a lease (or with a lapsed lease whose slot went to someone else), and
    before the clip could have played to its end since it was served: the playback gate applies to the
    rating itself, so a client need not report playback first (the page still does, to unlock its buttons;
    a reported playback end passed the same gate earlier)."""
    if not isinstance(score, int) or isinstance(score, bool) or not 1 <= score <= 5:
        raise InvalidInput(gettext("must be a whole number from 1 to 5"), field="score")
    now = now or timezone.now()
    rating = _rate_in_one_statement(clip, acting_user, score, now)
    if rating is not None:
        return rating, True
    try:
        with transaction.atomic():
            # Lock the item first so two copies of one submission line up; the second then sees the first.
            item = WorkItem.objects.select_for_update(of=("self",)).select_related("pool").get(pk=clip.work_item_id)
            state = _rating_state(clip, acting_user)
            if state["score"] is not None:
                if state["score"] == score:
                    return Rating.objects.get(clip=clip, listener=acting_user), False
                raise Conflict(gettext("You already rated this clip %(score)s; a rating cannot be changed.") % {"score": state["score"]},
                               code="score_conflict")
            assignment = queues.lease_for_submission(item, acting_user, now=now, locked=True)  # or a queue Conflict
            playback.require_played(duration_seconds=state["duration"], served_at=state["served_at"], now=now,
                                    last_reported_end=state["reported_end"])
            served = state["served_at"]
            rating = Rating.objects.create(
                clip=clip, listener=acting_user, score=score, rated_at=now,
                listening_seconds=(now - served).total_seconds() if served else None,
            )
            queues.mark_submitted(assignment, now=now)
            return rating, True
    except IntegrityError:
        # The unique (clip, listener) constraint caught a concurrent duplicate: answer as the first did.
        existing = Rating.objects.get(clip=clip, listener=acting_user)
        if existing.score == score:
            return existing, False
        raise Conflict(gettext("You already rated this clip; a rating cannot be changed."), code="score_conflict") from None


def _rate_in_one_statement(clip: Clip, listener, score: int, now: datetime) -> Rating | None:
    """rate_clip's common case in one round trip (queues.submit_in_one_statement): a live lease, no rating
    yet, and the playback gate met (the clip's length, less the slack, since it was served, or a reported
    playback end). None otherwise, and the careful path decides."""
    done = queues.submit_in_one_statement(
        sql.rating_record(clip.pk, listener.pk, score, now),
        item_id=clip.work_item_id, worker_id=listener.pk, now=now, guard=sql.rating_guard(clip.pk, now),
    )
    if done is None:
        return None
    (rating_id, seconds), _complete = done
    rating = Rating(pk=rating_id, clip=clip, listener=listener, score=score, rated_at=now, listening_seconds=seconds)
    rating._state.adding, rating._state.db = False, connection.alias
    return rating


def _rating_state(clip: Clip, listener) -> dict:
    """What a rating needs to know, in one query (read under the item's lock, so a rating stored by a
    concurrent copy of this submission is seen): the listener's stored score, when the clip was served to
    them, the last end their player reported for its audio, and its length."""
    mine = {"clip": OuterRef("pk"), "listener": listener}
    return Clip.objects.filter(pk=clip.pk).values(
        score=Subquery(Rating.objects.filter(**mine).values("score")[:1]),
        served_at=Subquery(ClipServing.objects.filter(**mine).values("served_at")[:1]),
        reported_end=Subquery(AudioPlayback.objects.filter(asset=OuterRef("asset_id"), user=listener)
                              .values("last_ended_at")[:1]),
        duration=F("asset__duration_seconds"),
    ).get()


# --- admin actions --------------------------------------------------------------------------------------


def exclude_listener(*, test: ListeningTest, listener, acting_user, reason: str = "") -> None:
    """Take a listener out of the test: no more clips; their ratings stay in the raw export but leave the
    clean set, and their slots are handed out again so every clip still reaches K valid ratings."""
    queues.exclude_worker(test.pool, listener, by=acting_user, reason=reason)


@dataclass(frozen=True)
class SplitResult:
    counts: dict[str, int]
    speaker_disjoint: int
    text_disjoint: int


def make_splits(*, test: ListeningTest, ratios=splitting.DEFAULT_RATIOS, seed: int = 0, hold_out_speakers: int = 0,
                hold_out_texts: int = 0) -> SplitResult:
    """Split the regular clips by their clean MOS (clips without ratings count as MOS 0: they are split
    too, at the bottom of the range) and store split and disjoint flags. Re-running with the same seed and
    the same ratings gives the same split. `hold_out_speakers` / `hold_out_texts` put every clip of that
    many random speakers (texts) in test first (see splits.stratified_split); InvalidInput if that cannot be.

    A fixed number of queries whatever the number of clips: the ratings, the clips' speaker and text, and
    one UPDATE per (split, speaker-disjoint, text-disjoint) combination."""
    table = clean_clip_table(test)
    mos = table["mos_mean"].to_dict() if not table.empty else {}
    items = [
        splitting.SplitClip(key=pk, mos=float(mos.get(pk, 0.0)), speaker=speaker, text=text)
        for pk, speaker, text in test.clips.regular().values_list("pk", "speaker", "text")
    ]
    try:
        assignment = splitting.stratified_split(
            items, ratios=tuple(ratios), seed=seed, hold_out_speakers=hold_out_speakers, hold_out_texts=hold_out_texts,
        )
    except ValueError as exc:
        raise InvalidInput(str(exc), field="hold_out_speakers" if hold_out_speakers else "hold_out_texts") from None
    flags = splitting.disjoint_flags(items, assignment)
    groups: dict[tuple[str, bool, bool], list[int]] = {}
    for pk, split in assignment.items():
        groups.setdefault((split, *flags[pk]), []).append(pk)
    result = SplitResult(
        counts={s: sum(len(pks) for (split, *_), pks in groups.items() if split == s) for s in splitting.SPLITS},
        speaker_disjoint=sum(1 for f in flags.values() if f[0]),
        text_disjoint=sum(1 for f in flags.values() if f[1]),
    )
    with transaction.atomic():
        for (split, speaker_disjoint, text_disjoint), pks in groups.items():
            Clip.objects.filter(pk__in=pks).update(split=split, speaker_disjoint=speaker_disjoint, text_disjoint=text_disjoint)
        test.split_params = {
            "ratios": list(ratios), "seed": seed, "hold_out_speakers": hold_out_speakers,
            "hold_out_texts": hold_out_texts, "speaker_disjoint": result.speaker_disjoint,
            "text_disjoint": result.text_disjoint, "made_at": timezone.now().isoformat(),
        }
        test.save(update_fields=["split_params"])
    return result


class PredictionRow(RowModel):
    """One row of a predictions CSV; context={"clips": {clip_id: pk}, "name": the default predictor}."""

    clip_id: str
    score: float = Field(allow_inf_nan=False)
    predictor: str = ""

    @field_validator("clip_id")
    @classmethod
    def _known_clip(cls, value: str, info: ValidationInfo) -> str:
        if value not in info.context["clips"]:
            raise ValueError(f"unknown clip id {value!r}")
        return value

    @model_validator(mode="after")
    def _named(self, info: ValidationInfo) -> PredictionRow:
        self.predictor = self.predictor or info.context["name"]
        if not self.predictor:
            raise ValueError("empty predictor")
        return self


def upload_predictions(*, test: ListeningTest, content: str, filename: str = "predictions.csv",
                       name: str = "", acting_user=None) -> list[Predictor]:
    """Store predictions from a CSV with columns clip_id, score (and optionally predictor, for several
    predictors in one file; otherwise `name` names the one predictor). A predictor uploaded again is
    replaced. Every bad row is reported with its line number; nothing is stored unless all rows are good."""
    try:
        header = next(csv.reader(io.StringIO(content.lstrip("\ufeff"))), [])
    except csv.Error as exc:
        raise FileRefused(gettext("not a readable CSV (%(exc)s)") % {"exc": exc}, file=filename, line=1) from None
    if "predictor" not in header and not name.strip():
        raise InvalidInput(gettext(
            "%(filename)s: give the predictor a name (or add a predictor column)"
        ) % {"filename": filename}, field="name")
    clip_pks = dict(test.clips.regular().values_list("clip_id", "pk"))
    rows = read_table(
        content.encode(), PredictionRow, name=filename, format="csv",
        context={"clips": clip_pks, "name": name.strip()}, unique=[("predictor", "clip_id")],
    )
    values: dict[str, dict[int, float]] = {}
    for _, row in rows:
        values.setdefault(row.predictor, {})[clip_pks[row.clip_id]] = row.score
    stored = []
    with transaction.atomic():
        for predictor_name, scores in values.items():
            predictor, _ = Predictor.objects.update_or_create(
                test=test, name=predictor_name[:100], defaults={"uploaded_by": actor(acting_user)}
            )
            predictor.predictions.all().delete()
            Prediction.objects.bulk_create(
                [Prediction(predictor=predictor, clip_id=pk, score=s) for pk, s in scores.items()], batch_size=1000
            )
            stored.append(predictor)
    return stored
