"""Reads of the verification workflow: what an annotator may see of an item (blind until settled), project
summaries and the dashboard's statistics."""

from collections import Counter, defaultdict

import numpy as np
import pandas as pd
from django.db.models import Count, Prefetch, Q
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.pseudonyms import pseudonyms_for
from apps.queues.models import Assignment, AssignmentStatus
from apps.verification.agreement import fleiss_kappa, krippendorff_nominal
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
from apps.verification.taxonomy import DOMAINS, PROMPT_VARIANTS, TASKS, TIER_LABELS

# Below this many fully reviewed items an agreement figure is shown with a warning that it is rough.
THIN_AGREEMENT_ITEMS = 20
PAPER_ACCEPTANCE_RATE = 81.26  # HPSU (seed 003): share of items kept after three-annotator verification


def is_reviewer(user, item: VerificationItem) -> bool:
    """The user was handed this item (a live or lapsed lease, or a submission) or has reviewed it."""
    return Assignment.objects.filter(item_id=item.work_item_id, worker=user).exclude(
        status=AssignmentStatus.INVALIDATED
    ).exists() or Review.objects.filter(item=item, annotator=user).exists()


def item_for_reviewer(item: VerificationItem, user, *, reveal_all: bool = False) -> dict:
    """The item as a reviewer sees it: everything about the item, their own review and history, and other
    reviewers' decisions only once the item is settled (or for an admin: reveal_all)."""
    own = Review.objects.filter(item=item, annotator=user).first()
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
        "your_history": [
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
    counts = project.items.aggregate(
        items=Count("id"),
        accepted=Count("id", filter=Q(status=ItemStatus.ACCEPTED)),
        rejected=Count("id", filter=Q(status=ItemStatus.REJECTED)),
        pending=Count("id", filter=Q(status=ItemStatus.PENDING)),
    )
    per_task = {}
    rows = project.items.values("task").annotate(
        items=Count("id"),
        accepted=Count("id", filter=Q(status=ItemStatus.ACCEPTED)),
        rejected=Count("id", filter=Q(status=ItemStatus.REJECTED)),
    )
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
    """Everything the admin dashboard shows, computed from the current reviews in a few reads: the review
    rows (ints and strings only), the non-empty reason lists, the annotators' names and the first split
    decisions. Counts per item, agreement and per-annotator figures are vectorised over those rows."""
    summary = project_summary(project)
    reviews = pd.DataFrame(
        list(Review.objects.filter(item__project=project).values_list("item_id", "annotator_id", "decision", "seconds_spent")),
        columns=["item", "annotator", "decision", "seconds"],
    )
    # Only rejections usually carry reasons: read just the lists that are not empty.
    reason_counts = Counter(
        reason
        for reasons in Review.objects.filter(item__project=project).exclude(reasons=[]).values_list("reasons", flat=True)
        for reason in reasons
    )
    reasons = [(Reason(r).label, reason_counts.get(r, 0)) for r in Reason.values]

    reviews["approve"] = reviews["decision"] == Decision.APPROVE
    per_item = reviews.groupby("item")["approve"].agg(["sum", "size"])
    complete = per_item[per_item["size"] == REVIEWERS]
    table = np.stack([complete["sum"].to_numpy(), REVIEWERS - complete["sum"].to_numpy()], axis=1)
    kappa = fleiss_kappa(table.tolist()) if len(table) else None
    alpha = None
    if len(reviews):
        rows, _ = pd.factorize(reviews["annotator"])
        cols, _ = pd.factorize(reviews["item"])
        matrix = np.full((rows.max() + 1, cols.max() + 1), np.nan)
        matrix[rows, cols] = reviews["approve"].to_numpy(dtype=float)
        alpha = krippendorff_nominal(matrix)

    per_annotator = reviews.groupby("annotator").agg(
        reviews=("approve", "size"), approvals=("approve", "sum"), median_seconds=("seconds", "median")
    )
    names = dict(User.objects.filter(pk__in=per_annotator.index.tolist()).values_list("pk", "username"))
    pseudonyms = pseudonyms_for(per_annotator.index.tolist(), project.pseudonym_scope)
    annotator_rows = sorted(
        (
            {"username": names[a], "pseudonym": pseudonyms[a], "reviews": int(r["reviews"]),
             "approval_rate": round(100 * r["approvals"] / r["reviews"], 1),
             "median_seconds": round(float(r["median_seconds"]), 1)}
            for a, r in per_annotator.iterrows()
        ),
        key=lambda row: row["username"],
    )
    split_ids = complete.index[complete["sum"] == REVIEWERS - 1]
    split = list(
        VerificationItem.objects.filter(pk__in=split_ids.tolist())
        .order_by("position").only("pk", "external_id", "task", "position")
        .prefetch_related(Prefetch("reviews", queryset=Review.objects.only("item_id", "decision", "reasons", "comment")))[:200]
    )
    return {
        "summary": summary,
        "per_domain": per_domain(summary),
        "reasons": reasons,
        "fleiss_kappa": None if kappa is None else round(kappa, 3),
        "krippendorff_alpha": None if alpha is None else round(alpha, 3),
        "agreement_items": int(len(complete)),
        # Items with at least two reviews: alpha needs one, and says "not enough overlapping reviews" without.
        "overlap_items": int((per_item["size"] >= 2).sum()),
        "thin_agreement": 0 < len(complete) < THIN_AGREEMENT_ITEMS,
        "annotators": annotator_rows,
        "split_decisions": split,
        "split_count": int(len(split_ids)),
    }


def waiting_for(project: VerificationProject, user) -> int:
    """Items this annotator could still be given (approximate while others are claiming)."""
    from apps.queues.selectors import remaining_for_worker

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
    import random

    done = set(BaselineAnswer.objects.filter(session=session, annotator=user).values_list("item_id", flat=True))
    ids = list(BaselineItem.objects.filter(session=session).order_by("position").values_list("item_id", flat=True))
    random.Random(f"{session.seed}:{user.pk}").shuffle(ids)
    for item_id in ids:
        if item_id not in done:
            return VerificationItem.objects.select_related("audio").get(pk=item_id)
    return None


def baseline_report(session: BaselineSession) -> dict:
    """Accuracy of the people who answered, scored like a model: per annotator and pooled."""
    from apps.verification.scoring import Prediction, score

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
