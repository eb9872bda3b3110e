"""HPSU verification release (seed 003): the accepted items of a verification project in the HPSU release
format that Sori imports (`HPSU_data.json` and its media, written by apps.verification.exports, so importing
the folder again gives the same items), plus one Parquet config per task with the audio as an Audio column.
Reviews travel as `reviews.csv` with annotator pseudonyms; rejected items are not part of a release."""

import json
from pathlib import Path, PurePosixPath

from django.utils.translation import gettext

from apps.accounts.pseudonyms import pseudonyms_for
from apps.core.errors import Conflict
from apps.releases.kinds import Built, Item, SourceMissing, Ticker
from apps.verification.exports import export_project
from apps.verification.models import ItemStatus, Review, VerificationProject

COLUMNS = {
    "id": "string", "audio": "audio", "audio_path": "string", "category": "string", "sub-category": "string",
    "type": "string", "question": "string", "choice": "list:string", "answer": "string", "attributes": "string",
    "prompts": "string", "transcript": "string", "source": "string", "metric": "string", "language": "string",
}


def source(source_id: int):
    project = VerificationProject.objects.filter(pk=source_id).first()
    if project is None:
        raise SourceMissing(f"no verification project with id {source_id}")
    if not project.items.filter(status=ItemStatus.ACCEPTED).exists():
        raise Conflict(gettext(
            "verification project %(name)r has no accepted item yet (an item is accepted when three "
            "annotators approve it)"
        ) % {"name": project.name}, code="nothing_to_release")
    return project


def default_license(obj) -> str | None:
    return None


def selection(project) -> dict:
    return {"source": "verification project", "id": project.pk, "name": project.name,
            "statuses": ["accepted (three approvals)"]}


def default_sources(project) -> list[dict]:
    return []


def build(project, folder: Path, progress) -> Built:
    """Write the HPSU file, its media and reviews.csv, one item per accepted item, then the card's text."""
    accepted = _load(project)
    ticker = Ticker(progress, len(accepted) + 1, "Writing the HPSU file and its media")
    _write_files(project, folder)
    ticker.tick()
    reviews, names = _reviews(project, accepted)
    items = []
    for item in accepted:
        items.append(_item(project, item, reviews.get(item.pk, []), names))
        ticker.tick(f"Item {item.external_id}")
    return _card(project, items, reviews)


def _load(project) -> list:
    """The accepted items, in file order; refused if one's audio path would leave the release folder."""
    accepted = list(project.items.filter(status=ItemStatus.ACCEPTED).select_related("audio", "item_import").order_by("position"))
    for item in accepted:
        rel = PurePosixPath(item.audio_path)
        if rel.is_absolute() or ".." in rel.parts:
            raise ValueError(f"item {item.external_id}: audio_path {item.audio_path!r} leaves the release folder")
    return accepted


def _write_files(project, folder: Path) -> None:
    """The HPSU file, its media and reviews.csv, as the verification export writes them."""
    export_project(project, folder, reviews_of_accepted_only=True)  # no rejected item, no review of one
    (folder / "items.json").rename(folder / "HPSU_data.json")


def _reviews(project, accepted: list) -> tuple[dict[int, list], dict[int, str]]:
    """(item id -> its reviews in time order, annotator id -> pseudonym in the project)."""
    reviews: dict[int, list] = {}
    for review in Review.objects.filter(item__in=accepted).order_by("created_at", "id"):
        reviews.setdefault(review.item_id, []).append(review)
    names = pseudonyms_for({r.annotator_id for rs in reviews.values() for r in rs}, project.pseudonym_scope)
    return reviews, names


def _item(project, item, mine: list, names: dict[int, str]) -> Item:
    """One accepted item's row (the source record's fields) and provenance line (its reviews)."""
    record = json.loads(item.record)
    row = {
        "id": item.external_id, "audio": item.audio_path, "audio_path": item.audio_path,
        "category": str(record.get("category", "")), "sub-category": str(record.get("sub-category", "")),
        "type": str(record.get("type", "")), "question": item.question, "choice": list(item.options),
        "answer": str(record.get("answer", "")),
        # Free-form in the source (an object, or ""), so JSON text keeps Parquet's columns one type.
        "attributes": json.dumps(record.get("attributes", ""), ensure_ascii=False, sort_keys=True),
        "prompts": json.dumps(record.get("prompts", {}), ensure_ascii=False, sort_keys=True),
        "transcript": item.transcript, "source": item.source, "metric": item.metric, "language": item.language,
    }
    decisions = [{"kind": "review", "by": names[r.annotator_id], "at": r.created_at.isoformat(),
                  "what": r.decision + (f" ({', '.join(r.reasons)})" if r.reasons else "")} for r in mine]
    return Item(
        item_id=item.external_id, config=item.task, split="test", row=row, audio_sha256=item.audio.sha256,
        provenance={
            "id": item.external_id,
            "source": {"project": project.name, "external_id": item.external_id, "file": item.item_import.file_name,
                       "file_sha256": item.item_import.file_sha256, "audio_sha256": item.audio.sha256,
                       "source": item.source},
            "agent_calls": [], "rulebook_versions": [],
            "human_decisions": {"count": len(mine), "pseudonyms": sorted({d["by"] for d in decisions}),
                                "decisions": decisions},
        },
        people={names[r.annotator_id]: r.annotator_id for r in mine},
        reason=f"accepted {item.settled_at.date().isoformat()}" if item.settled_at else "",
    )


def _card(project, items: list[Item], reviews: dict[int, list]) -> Built:
    """What is left out and why, the statistics and the card's text."""
    rejected = project.items.filter(status=ItemStatus.REJECTED).values_list("external_id", flat=True)
    pending = project.items.filter(status=ItemStatus.PENDING).values_list("external_id", flat=True)
    tasks: dict[str, int] = {}
    for item in items:
        tasks[item.config] = tasks.get(item.config, 0) + 1
    total = project.items.count()
    return Built(
        columns={task: COLUMNS for task in sorted(tasks)},
        items=items,
        excluded={**{i: "rejected by an annotator" for i in rejected}, **{i: "not settled yet" for i in pending}},
        statistics={"items accepted": len(items), "items imported": total,
                    "acceptance rate": f"{100 * len(items) / total:.2f} %" if total else "n/a",
                    "reviews": sum(len(v) for v in reviews.values()), "items per task": dict(sorted(tasks.items()))},
        how_built=[
            f"Verification project {project.name!r}: three trained annotators reviewed each item independently; "
            "only items with unanimous approval are released.",
            "Each distractor keeps its tier (similar, middle, opposite) in `attributes`; prompt variants "
            "(standard, positive, negative) are in `prompts`.",
            "Annotators appear only as stable per-project pseudonyms.",
        ],
        task_categories=["audio-classification", "question-answering"],
        tags=["hpsu", "paralinguistics", "benchmark"],
        extra_files={"HPSU_data.json": "the accepted items in the HPSU release format (Sori imports it as it is)",
                     "reviews.csv": "every review of a released item: annotator pseudonym, decision, reasons, time"},
    )
