"""Writes of the verification workflow: projects, imports, reviews and their settlement, baseline sessions,
scoring runs. Reviews go through the shared assignment engine (apps/queues) with K = 3."""

import hashlib
import json
import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from django.core.files import File
from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import gettext

from apps.audio.info import AudioInfo, AudioRejected
from apps.audio.inspection import inspect_many
from apps.audio.store import atomic_import, store_validated
from apps.core import limits
from apps.core.actors import actor
from apps.core.errors import Conflict, FileProblem, Forbidden, InvalidInput, NotFound
from apps.core.limits import bounded
from apps.core.tabular import refuse
from apps.instructions import defaults as default_instructions
from apps.instructions import services as instructions
from apps.queues import services as queues
from apps.queues.models import Assignment, AssignmentStatus, WorkItem
from apps.verification import scoring
from apps.verification.hpsu import ParsedItem, parse_records, safe_media_path
from apps.verification.media import MediaRejected, inspect_visual
from apps.verification.models import (
    BaselineAnswer,
    BaselineItem,
    BaselineSession,
    Decision,
    ItemImport,
    ItemStatus,
    Reason,
    Review,
    ReviewEvent,
    ScoringRun,
    VerificationItem,
    VerificationProject,
)

REVIEWERS_PER_ITEM = 3  # the paper's three trained annotators


# ---- projects and imports ---------------------------------------------------------------------------------


def create_project(*, name: str, settle_on_first_rejection: bool = False, description: str = "", acting_user=None,
                   lease_seconds: int | None = None) -> VerificationProject:
    bounded(description, field="description", limit=limits.DESCRIPTION)
    with transaction.atomic():
        pool = queues.create_pool(
            name=f"verification: {name}", kind="verification", required_per_item=REVIEWERS_PER_ITEM,
            lease_seconds=lease_seconds,
        )
        return VerificationProject.objects.create(
            name=name, description=description, pool=pool, settle_on_first_rejection=settle_on_first_rejection,
            created_by=actor(acting_user),
        )


@dataclass(frozen=True)
class CheckedImport:
    """An HPSU file that passed every check, with what storing it needs: nothing is written yet."""

    name: str  # the file name problems and the import row carry
    raw: bytes
    media_dir: Path
    project: VerificationProject | None  # None: the project is new and is created when stored
    items: list[ParsedItem]
    audio_files: dict[str, tuple[Path, AudioInfo]]  # audio_path as written -> the file and what its check found
    visual_files: dict[str, Path]  # visual_path as written -> the checked file under media_dir


def import_items(*, project_name: str, file_path: Path, media_dir: Path, acting_user=None,
                 settle_on_first_rejection: bool | None = None, display_name: str | None = None) -> ItemImport:
    """Import an HPSU file into the named project (created when new). All or nothing: every problem is
    collected first and raised together as FileRefused, naming each record's file, line and field; only a
    file with none is stored, in one transaction."""
    checked = check_import(project_name=project_name, file_path=file_path, media_dir=media_dir,
                           display_name=display_name)
    return store_import(checked, project_name=project_name, acting_user=acting_user,
                        settle_on_first_rejection=settle_on_first_rejection)


def check_import(*, project_name: str, file_path: Path, media_dir: Path,
                 display_name: str | None = None) -> CheckedImport:
    """Read and check the file and every media file it names, writing nothing. Raises FileRefused with
    every problem found (records first read, then their media)."""
    file_path, media_dir = Path(file_path), Path(media_dir)
    name = display_name or file_path.name
    raw = file_path.read_bytes()
    project = VerificationProject.objects.filter(name=project_name).first()
    existing = set(project.items.values_list("external_id", flat=True)) if project else set()
    parsed, problems = parse_records(raw, name=name, existing_ids=existing)
    audio_files, visual_files = _check_media(parsed, media_dir=media_dir, name=name, problems=problems)
    refuse(problems)
    return CheckedImport(name=name, raw=raw, media_dir=media_dir, project=project, items=parsed,
                         audio_files=audio_files, visual_files=visual_files)


def _check_media(parsed: list[ParsedItem], *, media_dir: Path, name: str,
                 problems: list[FileProblem]) -> tuple[dict[str, Path], dict[str, Path]]:
    """Every media file must exist under the media folder and be what its field says, from its content:
    decodable audio, an image or a video the review page shows (never SVG or HTML, which run script).
    Each file is inspected once however many records name it (the audio side by side, inspect_many), and
    what the check found is what store_import stores; problems are appended to `problems`. Returns the files
    that passed (audio with their findings, visual), keyed by the path as the records write it."""
    audio_paths = {item.audio_path: safe_media_path(media_dir, item.audio_path) for item in parsed}
    outcomes = inspect_many([(path, rel) for rel, path in audio_paths.items() if path is not None and path.is_file()])
    audio_files: dict[str, tuple[Path, AudioInfo]] = {}
    visual_files: dict[str, Path] = {}
    checked_visuals: set[tuple[str, str]] = set()
    for item in parsed:
        problem = _check_audio(item, path=audio_paths[item.audio_path], media_dir=media_dir, name=name,
                               outcomes=outcomes, files=audio_files)
        if problem is not None:
            problems.append(problem)
            continue  # as before: a record with bad audio is not checked further
        if item.visual_path:
            problem = _check_visual(item, media_dir=media_dir, name=name, checked=checked_visuals,
                                    files=visual_files)
            if problem is not None:
                problems.append(problem)
    return audio_files, visual_files


def _missing(name: str, item: ParsedItem, field: str, path: str, media_dir: Path) -> FileProblem:
    return FileProblem(file=name, line=item.line, field=field,
                       reason=f"missing media {path!r} (not found under {media_dir})")


def _check_audio(item: ParsedItem, *, path: Path | None, media_dir: Path, name: str,
                 outcomes: dict[Path, AudioInfo | AudioRejected],
                 files: dict[str, tuple[Path, AudioInfo]]) -> FileProblem | None:
    """The record's audio exists and decodes (by inspect_many's outcome for its file)."""
    if path is None or not path.is_file():
        return _missing(name, item, "audio_path", item.audio_path, media_dir)
    outcome = outcomes[path.resolve()]
    if isinstance(outcome, AudioRejected):
        return FileProblem(file=name, line=item.line, field="audio_path", reason=f"media {outcome}")
    files[item.audio_path] = (path, outcome)
    return None


def _check_visual(item: ParsedItem, *, media_dir: Path, name: str, checked: set[tuple[str, str]],
                  files: dict[str, Path]) -> FileProblem | None:
    """The record's image or video exists and is that kind of file, from its content."""
    field = f"{item.visual_kind}_path"
    visual = safe_media_path(media_dir, item.visual_path)
    if visual is None or not visual.is_file():
        return _missing(name, item, field, item.visual_path, media_dir)
    if (item.visual_path, item.visual_kind) not in checked:
        try:
            inspect_visual(visual, kind=item.visual_kind, name=item.visual_path)
        except MediaRejected as exc:
            return FileProblem(file=name, line=item.line, field=field, reason=f"media {exc.name!r} {exc.reason}")
        checked.add((item.visual_path, item.visual_kind))
    files[item.visual_path] = visual
    return None


def store_import(checked: CheckedImport, *, project_name: str, acting_user=None,
                 settle_on_first_rejection: bool | None = None) -> ItemImport:
    """Write a checked file in one transaction: the project (created or its setting updated), the import
    row, the audio assets, one work item and one item per record. A failure rolls all of it back, and the
    audio files it stored with it (atomic_import)."""
    acting_user = actor(acting_user)
    with atomic_import():
        project = _project_for_import(checked.project, name=project_name, acting_user=acting_user,
                                      settle_on_first_rejection=settle_on_first_rejection)
        batch = ItemImport.objects.create(
            project=project, file_name=checked.name, file_sha256=hashlib.sha256(checked.raw).hexdigest(),
            media_dir=str(checked.media_dir), item_count=len(checked.items), imported_by=acting_user,
        )
        stored = store_validated([(path, info, rel) for rel, (path, info) in checked.audio_files.items()])
        assets = {rel: stored[info.sha256] for rel, (_, info) in checked.audio_files.items()}
        work_item_ids = queues.add_items(project.pool, len(checked.items))
        start = (project.items.order_by("-position").values_list("position", flat=True).first() or 0) + 1
        rows = [
            _item_row(item, project=project, batch=batch, work_item_id=work_item_id, position=start + offset,
                      audio=assets[item.audio_path], visual=checked.visual_files.get(item.visual_path))
            for offset, (item, work_item_id) in enumerate(zip(checked.items, work_item_ids, strict=True))
        ]
        VerificationItem.objects.bulk_create(rows, batch_size=500)
    return batch


def _project_for_import(project: VerificationProject | None, *, name: str, acting_user,
                        settle_on_first_rejection: bool | None) -> VerificationProject:
    """The project the items go into: created when new, else its setting updated when one is given."""
    if project is None:
        return create_project(name=name, acting_user=acting_user,
                              settle_on_first_rejection=bool(settle_on_first_rejection))
    if settle_on_first_rejection is not None:
        project.settle_on_first_rejection = settle_on_first_rejection
        project.save(update_fields=["settle_on_first_rejection"])
    return project


def _item_row(item: ParsedItem, *, project, batch, work_item_id: int, position: int, audio, visual: Path | None):
    """One unsaved VerificationItem for a checked record; its image or video is copied to storage."""
    row = VerificationItem(
        project=project, work_item_id=work_item_id, external_id=item.external_id, position=position,
        audio=audio, audio_path=item.audio_path, transcript=item.transcript,
        task=item.task, domain=item.domain, format=item.format, language=item.language,
        question=item.question, options=item.options, answers=item.answers, tiers=item.tiers,
        statement=item.statement, expected_yes=item.expected_yes, prompts=item.prompts,
        source=item.source, metric=item.metric, item_import=batch,
        record=json.dumps(item.record, ensure_ascii=False),
    )
    if item.visual_path:
        with open(visual, "rb") as fh:
            row.visual.save(Path(item.visual_path).name, File(fh), save=False)
        row.visual_kind = item.visual_kind
    return row


# ---- reviewing --------------------------------------------------------------------------------------------


def next_item(*, project: VerificationProject, acting_user, now=None) -> VerificationItem | None:
    """The annotator's current item (their live lease) or the next one in their own order; None when done.
    `now` (default: the clock) lets a test put leases in the past without sleeping, as listening's do."""
    assignment = queues.claim_next(project.pool, acting_user, now=now)
    if assignment is None:
        return None
    return VerificationItem.objects.select_related("audio").get(work_item_id=assignment.item_id)


def clean_review(decision: str, reasons, comment: str) -> tuple[str, list[str], str]:
    if decision not in Decision.values:
        raise InvalidInput(gettext(
            "decision must be 'approve' or 'reject', not %(decision)r"
        ) % {"decision": decision}, field="decision")
    reasons = list(dict.fromkeys(reasons or []))
    unknown = [r for r in reasons if r not in Reason.values]
    if unknown:
        raise InvalidInput(gettext(
            "unknown reason(s) %(unknown)s; expected %(values)s"
        ) % {"unknown": ', '.join(map(str, unknown)), "values": ', '.join(Reason.values)},
                           field="reasons")
    comment = bounded((comment or "").strip(), field="comment", limit=limits.COMMENT)
    if decision == Decision.APPROVE and reasons:
        raise InvalidInput(gettext("an approval takes no rejection reasons"), field="reasons")
    if decision == Decision.REJECT and not reasons:
        raise InvalidInput(gettext("a rejection needs at least one reason"), field="reasons")
    if Reason.OTHER in reasons and not comment:
        raise InvalidInput(gettext("reason 'other' needs a comment saying what is wrong"), field="comment")
    return decision, reasons, comment


def submit_review(*, item: VerificationItem, acting_user, decision: str, reasons=None, comment: str = "",
                  seconds: float | None = None, now=None) -> tuple[Review, bool]:
    """Store the annotator's decision on the item, or change it while the item is unsettled. Returns
    (review, created). The same decision sent twice stores one review and one history entry, and is
    answered with the stored review even when the first one settled the item. Settles the item when its
    reviews decide it (see `_settle`)."""
    decision, reasons, comment = clean_review(decision, reasons, comment)
    now = now or timezone.now()
    with transaction.atomic():
        try:
            # Locks the item's WorkItem row: submissions and settlement of one item are serialised.
            assignment = queues.lease_for_submission(item.work_item, acting_user, now=now)
        except queues.NoLease as exc:
            raise Forbidden(gettext("You were not given item %(item)s; ask for the next item.") % {"item": item.external_id}, code=exc.code) from None
        except queues.ItemClosed:
            raise Conflict(gettext("Item %(item)s is already settled.") % {"item": item.external_id}, code="settled") from None
        # Read after the lock: the item's status and whether this annotator reviewed it, in one query (the
        # review itself only when there is one).
        item.status, own = VerificationItem.objects.filter(pk=item.pk).values_list(
            "status", Subquery(Review.objects.filter(item=OuterRef("pk"), annotator=acting_user).values("pk")[:1]),
        ).get()
        review = Review.objects.get(pk=own) if own is not None else None
        if item.is_settled:
            if review is not None and (review.decision, review.reasons, review.comment) == (decision, reasons, comment):
                return review, False  # the same review sent again (a retry after the one that settled it)
            raise Conflict(gettext("Item %(item)s is already settled (%(status)s); decisions are final.") % {"item": item.external_id, "status": item.get_status_display()}, code="settled")
        if seconds is None or seconds < 0:
            seconds = max(0.0, min((now - assignment.leased_at).total_seconds(), item.project.pool.lease_seconds))
        seconds = float(min(seconds, 24 * 3600))
        created = review is None
        if created:
            review = Review.objects.create(item=item, annotator=acting_user, decision=decision, reasons=reasons,
                                           comment=comment, seconds_spent=seconds)
            ReviewEvent.objects.create(item=item, annotator=acting_user, kind="submitted", decision=decision,
                                       reasons=reasons, comment=comment, seconds=seconds)
            queues.mark_submitted(assignment, now=now)
        elif (review.decision, review.reasons, review.comment) != (decision, reasons, comment):
            review.decision, review.reasons, review.comment = decision, reasons, comment
            review.seconds_spent += seconds
            review.changes += 1
            review.save()
            ReviewEvent.objects.create(item=item, annotator=acting_user, kind="changed", decision=decision,
                                       reasons=reasons, comment=comment, seconds=seconds)
        _settle(item, now)
    return review, created


def _settle(item: VerificationItem, now) -> None:
    """Under the item lock. Accepted: three approvals. Rejected: a rejection - at once when the project
    settles on the first rejection (and the item is closed in the queue), else when all three are in."""
    decisions = list(Review.objects.filter(item=item).values_list("decision", flat=True))
    rejected = Decision.REJECT in decisions
    status = None
    if len(decisions) >= REVIEWERS_PER_ITEM:
        status = ItemStatus.REJECTED if rejected else ItemStatus.ACCEPTED
    elif rejected and item.project.settle_on_first_rejection:
        status = ItemStatus.REJECTED
    if status is None:
        return
    VerificationItem.objects.filter(pk=item.pk, status=ItemStatus.PENDING).update(status=status, settled_at=now)
    item.status, item.settled_at = status, now
    if len(decisions) < REVIEWERS_PER_ITEM:
        queues.close_item(item.work_item)


def set_settle_on_first_rejection(*, project: VerificationProject, value: bool) -> int:
    """Change the project's setting. Turning it on settles at once every pending item that already has a
    rejection (and closes it in the queue); returns how many were settled."""
    project.settle_on_first_rejection = value
    project.save(update_fields=["settle_on_first_rejection"])
    if not value:
        return 0
    settled = 0
    pending = project.items.filter(status=ItemStatus.PENDING, reviews__decision=Decision.REJECT).distinct()
    for item in pending.select_related("project", "work_item"):
        with transaction.atomic():
            # The same lock a submission takes, so a review cannot slip in between reading and settling.
            item.work_item = WorkItem.objects.select_for_update(of=("self",)).get(pk=item.work_item_id)
            item.project = project
            _settle(item, timezone.now())
            settled += item.status != ItemStatus.PENDING
    return settled


def skip_item(*, item: VerificationItem, acting_user, reason: str = "") -> bool:
    """Give an item back unreviewed. Without a reason it is "later": its slot goes to someone else, and it
    comes back to this annotator when no one else can take it. With a reason it is declined for good.
    False (and nothing changes) when the annotator does not hold the item."""
    bounded(reason, field="reason", limit=limits.NOTE)
    assignment = Assignment.objects.filter(item_id=item.work_item_id, worker=acting_user, status=AssignmentStatus.LEASED).first()
    if assignment is None:
        return False
    if reason.strip():
        queues.decline(assignment, reason=reason)
    else:
        queues.release(assignment)
    return True


# ---- human baseline ----------------------------------------------------------------------------------------


def stratified_sample(items: list[VerificationItem], size: int, rng: random.Random) -> list[VerificationItem]:
    """Equal allocation across tasks (so every task's accuracy rests on a comparable count), capped by what a
    task has; what a small task cannot use goes to the others in turn."""
    by_task: dict[str, list] = defaultdict(list)
    for item in items:
        by_task[item.task].append(item)
    for pool in by_task.values():
        rng.shuffle(pool)
    quota = dict.fromkeys(by_task, 0)
    remaining = min(size, len(items))
    while remaining:
        open_tasks = [t for t in sorted(by_task) if quota[t] < len(by_task[t])]
        share = max(1, remaining // len(open_tasks))
        for task in open_tasks:
            take = min(share, len(by_task[task]) - quota[task], remaining)
            quota[task] += take
            remaining -= take
            if not remaining:
                break
    chosen = [item for task in sorted(by_task) for item in by_task[task][: quota[task]]]
    rng.shuffle(chosen)
    return chosen


def create_baseline(*, project: VerificationProject, name: str, size: int = 300, acting_user=None, seed: int | None = None) -> BaselineSession:
    if size < 1:
        raise InvalidInput(gettext("the sample needs at least one item"), field="size")
    accepted = list(project.items.filter(status=ItemStatus.ACCEPTED).order_by("position"))
    if not accepted:
        raise Conflict(gettext("%(name)s has no accepted items to sample from yet") % {"name": project.name})
    seed = seed if seed is not None else random.SystemRandom().randrange(2**62)
    sample = stratified_sample(accepted, size, random.Random(seed))
    with transaction.atomic():
        session = BaselineSession.objects.create(project=project, name=name, requested_size=size, seed=seed,
                                                 created_by=actor(acting_user))
        BaselineItem.objects.bulk_create(
            [BaselineItem(session=session, item=item, position=i) for i, item in enumerate(sample, start=1)]
        )
    return session


def baseline_option_order(session: BaselineSession, item: VerificationItem, annotator) -> list[str]:
    """Options in a random order of their own for each annotator and item (stable across reloads)."""
    options = list(item.options)
    random.Random(f"{session.seed}:{item.pk}:{annotator.pk}").shuffle(options)
    return options


def answer_baseline(*, session: BaselineSession, item: VerificationItem, acting_user, chosen: list[str],
                    seconds: float = 0) -> BaselineAnswer:
    """Store an annotator's blind answer. Idempotent: a second answer to the same item keeps the first."""
    if not BaselineItem.objects.filter(session=session, item=item).exists():
        raise NotFound(gettext(
            "item %(external_id)s is not in baseline %(name)s"
        ) % {"external_id": item.external_id, "name": session.name})
    allowed = scoring.yes_no_options(item) if item.format == "yes_no" else item.options
    bad = [c for c in chosen if c not in allowed]
    if not chosen or bad:
        raise InvalidInput(gettext("choose one of the options shown"), field="chosen")
    if item.format != "multiple" and len(chosen) != 1:
        raise InvalidInput(gettext("this question takes exactly one answer"), field="chosen")
    answer, _ = BaselineAnswer.objects.get_or_create(
        session=session, item=item, annotator=acting_user,
        defaults={"prediction": ",".join(chosen), "option_order": baseline_option_order(session, item, acting_user),
                  "seconds_spent": max(0.0, float(seconds or 0))},
    )
    return answer


# ---- scoring runs ------------------------------------------------------------------------------------------


def score_predictions_file(*, project: VerificationProject, name: str, path: Path, acting_user=None) -> ScoringRun:
    predictions = scoring.read_predictions(Path(path))
    items = list(project.items.filter(status=ItemStatus.ACCEPTED))
    report = scoring.score(items, predictions)
    return ScoringRun.objects.create(project=project, name=name, file_name=Path(path).name, report=report,
                                     created_by=actor(acting_user))


# --- participant instructions -------------------------------------------------------------------------------


def project_instructions(project: VerificationProject):
    return instructions.current(project, default=default_instructions.VERIFICATION)


def revise_instructions(*, project: VerificationProject, text_ko: str, text_en: str = "", acting_user=None):
    """The admin sets the project's reviewer instructions (a new version once anyone reviewed under the old)."""
    return instructions.revise(owner=project, text_ko=text_ko, text_en=text_en, acting_user=acting_user,
                               default=default_instructions.VERIFICATION,
                               answers=Review.objects.filter(item__project=project), answered_at="updated_at")
