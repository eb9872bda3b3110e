"""Reads of the verification workflow: what an annotator may see of an item (blind until settled), project
summaries and the dashboard's statistics."""

import random
from collections import Counter, defaultdict

import numpy as np
from django.db.models import Case, Count, Exists, F, OuterRef, Prefetch, Q, When, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.pseudonyms import pseudonyms_for
from apps.queues.models import Assignment, AssignmentStatus
from apps.queues.selectors import remaining_for_worker, unreachable_items
from apps.verification import sql
from apps.verification.agreement import fleiss_kappa, krippendorff_nominal_counts
from apps.verification.models import (
    BaselineAnswer,
    BaselineItem,
    BaselineSession,
    Decision,
    ItemStatus,
    Reason,
    Review,
    ReviewEvent,
    VerificationItem,
    VerificationProject,
)
from apps.verification.scoring import Prediction, score
from apps.verification.taxonomy import DOMAINS, PROMPT_VARIANTS, TASKS, TIER_LABELS

# Below this many fully reviewed items an agreement figure is shown with a warning that it is rough.
THIN_AGREEMENT_ITEMS = 20
PAPER_ACCEPTANCE_RATE = 81.26  # HPSU (seed 003): share of items kept after three-annotator verification


def is_reviewer(user, item: VerificationItem) -> bool:
    """The user was handed this item (a live or lapsed lease, or a submission) or has reviewed it."""
    return Assignment.objects.filter(item_id=item.work_item_id, worker=user).exclude(
        status=AssignmentStatus.INVALIDATED
    ).exists() or Review.objects.filter(item=item, annotator=user).exists()


def item_for_reviewer(item: VerificationItem, user, *, reveal_all: bool = False, leased: bool = False) -> dict:
    """The item as a reviewer sees it: everything about the item, their own review and history, and other
    reviewers' decisions only once the item is settled (or for an admin: reveal_all).

    leased=True: the item was just handed to them by the queue (`next`), so they have no review or history
    of it: a review is stored in the transaction that marks its lease submitted, and a submitted lease is
    never handed out again. Two reads fewer on every `next`."""
    own = None if leased else Review.objects.filter(item=item, annotator=user).first()
    data = {
        "id": item.pk,
        "external_id": item.external_id,
        "project": item.project_id,
        "task": item.task,
        "domain": item.domain,
        "format": item.format,
        "format_label": item.get_format_display(),
        "language": item.language,
        "question": item.question,
        "statement": item.statement,
        "expected_yes": item.expected_yes,
        "options": [
            {"text": o, "correct": o in item.answers, "tier": item.tier_of(o),
             "tier_label": TIER_LABELS.get(item.tier_of(o) or "", item.tier_of(o)), "key": chr(ord("A") + i)}
            for i, o in enumerate(item.options)
        ],
        # Each variant as a list of texts: the release may give several templates per variant.
        "prompts": {
            k: item.prompts[k] if isinstance(item.prompts[k], list) else [item.prompts[k]]
            for k in PROMPT_VARIANTS if k in item.prompts
        },
        "transcript": item.transcript,
        "audio_url": item.audio.get_absolute_url(),
        "visual_url": f"/verification/items/{item.pk}/visual/" if item.visual else "",
        "visual_kind": item.visual_kind,
        "source": item.source,
        "status": item.status if item.is_settled else "pending",
        "settled": item.is_settled,
        "your_review": review_dict(own) if own else None,
        "your_history": [] if leased else [
            _event_dict(e) for e in ReviewEvent.objects.filter(item=item, annotator=user).order_by("at", "id")
        ],
    }
    if item.is_settled or reveal_all:
        reviews = list(Review.objects.filter(item=item).order_by("created_at", "id"))
        names = pseudonyms_for({r.annotator_id for r in reviews}, item.project.pseudonym_scope)
        data["reviews"] = [{"annotator": names[r.annotator_id], **review_dict(r)} for r in reviews]
    return data


def review_dict(review: Review) -> dict:
    return {
        "decision": review.decision, "reasons": review.reasons, "comment": review.comment,
        "seconds_spent": round(review.seconds_spent, 1), "changes": review.changes,
        "updated_at": review.updated_at.isoformat(),
    }


def _event_dict(event: ReviewEvent) -> dict:
    return {"kind": event.kind, "decision": event.decision, "reasons": event.reasons, "comment": event.comment,
            "at": event.at.isoformat()}


def _rate(accepted: int, rejected: int) -> float | None:
    settled = accepted + rejected
    return round(100 * accepted / settled, 2) if settled else None


def project_summary(project: VerificationProject) -> dict:
    """Item counts by status, overall and per task, from one grouped read (the totals are the tasks' sums)."""
    rows = list(project.items.order_by().values("task").annotate(
        items=Count("id"),
        accepted=Count("id", filter=Q(status=ItemStatus.ACCEPTED)),
        rejected=Count("id", filter=Q(status=ItemStatus.REJECTED)),
        pending=Count("id", filter=Q(status=ItemStatus.PENDING)),
    ))
    counts = {key: sum(r[key] for r in rows) for key in ("items", "accepted", "rejected", "pending")}
    per_task = {}
    by_task = {r["task"]: r for r in rows}
    for task in TASKS:
        if task.name in by_task:
            r = by_task[task.name]
            per_task[task.name] = {
                "domain": task.domain, "items": r["items"], "accepted": r["accepted"], "rejected": r["rejected"],
                "pending": r["items"] - r["accepted"] - r["rejected"],
                "acceptance_rate": _rate(r["accepted"], r["rejected"]),
            }
    return {
        "project": project.pk, "name": project.name,
        "settle_on_first_rejection": project.settle_on_first_rejection,
        **counts,
        "acceptance_rate": _rate(counts["accepted"], counts["rejected"]),
        "paper_acceptance_rate": PAPER_ACCEPTANCE_RATE,
        "per_task": per_task,
    }


def per_domain(summary: dict) -> dict:
    out = {}
    for domain in DOMAINS:
        rows = [r for r in summary["per_task"].values() if r["domain"] == domain]
        if rows:
            accepted, rejected = sum(r["accepted"] for r in rows), sum(r["rejected"] for r in rows)
            out[domain] = {"items": sum(r["items"] for r in rows), "accepted": accepted, "rejected": rejected,
                           "acceptance_rate": _rate(accepted, rejected)}
    return out


REVIEWERS = 3  # three-annotator verification (HPSU): agreement is computed over items with all three reviews


def dashboard(project: VerificationProject) -> dict:
    """Everything the admin dashboard shows, aggregated in the database: a handful of small reads whatever
    the project's size (the item counts, reason lists by kind, items by their review and approval counts,
    per-annotator figures, the first split decisions); no review row is read into Python."""
    summary = project_summary(project)
    reviews = Review.objects.filter(item__project=project).order_by()
    by_counts = _items_by_review_counts(reviews)  # (reviews, approvals) -> items
    complete = {approvals: items for (n, approvals), items in by_counts.items() if n == REVIEWERS}
    agreement_items = sum(complete.values())
    split_count = complete.get(REVIEWERS - 1, 0)
    kappa = fleiss_kappa(_repeat([[a, REVIEWERS - a] for a in complete], list(complete.values())))
    # Units x (rejections, approvals), one row per item with a review: alpha depends on nothing else.
    alpha = krippendorff_nominal_counts(_repeat([[n - a, a] for n, a in by_counts], list(by_counts.values())))
    split = []
    if split_count:
        split = list(
            VerificationItem.objects.filter(project=project)
            .annotate(n=Count("reviews"), approvals=Count("reviews", filter=Q(reviews__decision=Decision.APPROVE)))
            .filter(n=REVIEWERS, approvals=REVIEWERS - 1)
            .order_by("position").only("pk", "external_id", "task", "position")
            # The page shows why each was rejected: only the one rejection of each item is read.
            .prefetch_related(Prefetch("reviews", to_attr="rejections", queryset=Review.objects.filter(
                decision=Decision.REJECT).only("item_id", "decision", "reasons", "comment")))[:200]
        )
    return {
        "summary": summary,
        "per_domain": per_domain(summary),
        "reasons": _reason_counts(reviews),
        "fleiss_kappa": None if kappa is None else round(kappa, 3),
        "krippendorff_alpha": None if alpha is None else round(alpha, 3),
        "agreement_items": agreement_items,
        # Items with at least two reviews: alpha needs one, and says "not enough overlapping reviews" without.
        "overlap_items": sum(items for (n, _), items in by_counts.items() if n >= 2),
        "thin_agreement": 0 < agreement_items < THIN_AGREEMENT_ITEMS,
        "annotators": _annotator_rows(project, reviews),
        "split_decisions": split,
        "split_count": split_count,
    }


def _repeat(rows: list[list[int]], times: list[int]) -> np.ndarray:
    """rows[i] repeated times[i] times: the per-item table the agreement functions take, rebuilt from the
    database's counts of items per distinct row."""
    return np.repeat(np.asarray(rows, dtype=float).reshape(-1, 2), times, axis=0)


def _items_by_review_counts(reviews) -> dict[tuple[int, int], int]:
    """How many items have each (number of reviews, number of approvals): a few rows for any project."""
    per_item = reviews.values("item_id").annotate(
        n=Count("pk"), approvals=Count("pk", filter=Q(decision=Decision.APPROVE)),
    ).values("n", "approvals")
    rows = sql.items_by_review_counts(per_item)
    return {(n, approvals): items for n, approvals, items in rows}


def _reason_counts(reviews) -> list[tuple[str, int]]:
    """(label, reviews giving it) for every reason. Only rejections carry reasons, in few distinct lists:
    the database counts the reviews per list."""
    counts: Counter = Counter()
    for reasons, n in reviews.exclude(reasons=[]).values_list("reasons").annotate(n=Count("pk")).values_list("reasons", "n"):
        for reason in reasons:
            counts[reason] += n
    return [(Reason(r).label, counts.get(r, 0)) for r in Reason.values]


def _annotator_rows(project: VerificationProject, reviews) -> list[dict]:
    """Per annotator: reviews, approval rate and median time, by username. The median is the middle row
    (or the mean of the two middle rows) of the annotator's times in order, numbered by a window function;
    the names come in a second read (grouping by a text column would sort every review by collation)."""
    ranked = reviews.annotate(
        approved=Case(When(decision=Decision.APPROVE, then=1), default=0),
        rank=Window(RowNumber(), partition_by=F("annotator_id"), order_by=F("seconds_spent").asc()),
        total=Window(Count("pk"), partition_by=F("annotator_id")),
    ).values("annotator_id", "approved", "seconds_spent", "rank", "total")
    rows = sql.annotator_medians(ranked)
    names = dict(User.objects.filter(pk__in=[row[0] for row in rows]).values_list("pk", "username"))
    pseudonyms = pseudonyms_for([row[0] for row in rows], project.pseudonym_scope)
    return sorted(
        (
            {"username": names[annotator], "pseudonym": pseudonyms[annotator], "reviews": n,
             "approval_rate": round(100 * approvals / n, 1), "median_seconds": round(float(median), 1)}
            for annotator, n, approvals, median in rows
        ),
        key=lambda row: row["username"],
    )


def waiting_for(project: VerificationProject, user) -> int:
    """Items this annotator could still be given (approximate while others are claiming)."""
    return remaining_for_worker(project.pool, user)


def reviewed_by(project: VerificationProject, user) -> int:
    return Review.objects.filter(item__project=project, annotator=user).count()


def unsettled_reviews(project: VerificationProject, user) -> list[Review]:
    """The annotator's own reviews on items still open: they may change them."""
    return list(
        Review.objects.filter(item__project=project, annotator=user, item__status=ItemStatus.PENDING)
        .select_related("item").order_by("-updated_at")[:50]
    )


def baseline_next(session: BaselineSession, user) -> VerificationItem | None:
    """The first sample item (in this annotator's own order) they have not answered."""
    done = set(BaselineAnswer.objects.filter(session=session, annotator=user).values_list("item_id", flat=True))
    ids = list(BaselineItem.objects.filter(session=session).order_by("position").values_list("item_id", flat=True))
    random.Random(f"{session.seed}:{user.pk}").shuffle(ids)
    for item_id in ids:
        if item_id not in done:
            return VerificationItem.objects.select_related("audio").get(pk=item_id)
    return None


def baseline_report(session: BaselineSession) -> dict:
    """Accuracy of the people who answered, scored like a model: per annotator and pooled."""
    items = list(session.items.all())
    answers = list(BaselineAnswer.objects.filter(session=session).select_related("item", "annotator"))
    by_annotator = defaultdict(list)
    for a in answers:
        by_annotator[a.annotator.username].append(Prediction(a.item.external_id, a.prediction))
    people = {name: score(items, preds, missing="skip") for name, preds in sorted(by_annotator.items())}
    # Pooled: every answer of every person is one scored row (per task mean over people and items).
    pooled_items, pooled_preds = [], []
    for name, preds in by_annotator.items():
        for p in preds:
            pooled_preds.append(Prediction(f"{name}::{p.item_id}", p.text))
    lookup = {i.external_id: i for i in items}
    for p in pooled_preds:
        clone = lookup[p.item_id.split("::", 1)[1]]
        pooled_items.append(_Alias(clone, p.item_id))
    pooled = score(pooled_items, pooled_preds, missing="skip") if pooled_preds else None
    return {"people": people, "pooled": pooled, "answers": len(answers), "sample": len(items),
            "at": timezone.now().isoformat()}


class _Alias:
    """An item seen under another id (so one item answered by several people is scored once per person)."""

    def __init__(self, item, alias):
        self._item, self.external_id = item, alias

    def __getattr__(self, name):
        return getattr(self._item, name)


def pipeline_counts() -> dict:
    """The HPSU workflow for the admin's home page, in two queries whatever the number of projects: items
    imported, fully reviewed (all their reviews in), accepted and rejected; and reviews given."""
    counts = VerificationItem.objects.aggregate(
        items=Count("id"), reviewed=Count("id", filter=Q(work_item__complete=True)),
        accepted=Count("id", filter=Q(status=ItemStatus.ACCEPTED)), rejected=Count("id", filter=Q(status=ItemStatus.REJECTED)))
    counts["reviews"] = Review.objects.count()
    return counts


def unreachable_by_project(*, limit: int = 10) -> list[tuple[VerificationProject, int]]:
    """Projects with pending items that cannot get their reviews from the annotators who may still give one,
    with how many (one reading of the queue engine per project with pending items, at most `limit` projects)."""
    found = []
    pending = VerificationItem.objects.filter(project=OuterRef("pk"), status=ItemStatus.PENDING)
    for project in VerificationProject.objects.filter(Exists(pending)).select_related("pool")[:limit]:
        if stuck := unreachable_items(project.pool):
            found.append((project, len(stuck)))
    return found
