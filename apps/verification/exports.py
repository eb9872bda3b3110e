"""Export of a verification project:
- items.json: the accepted items in the HPSU release format they were imported in (each source record as it
  was, key order kept), with their media under the same relative paths, so importing the folder again
  (`import_verification_items --file DIR/items.json --media DIR`) gives the same items;
- reviews.csv: every review (item, annotator pseudonym, decision, reasons, comment, seconds, changes, times);
- rejected.jsonl: each rejected item's source record with the reasons and comments that rejected it."""

import io
import json
import shutil
import tempfile
from pathlib import Path

from apps.accounts.pseudonyms import pseudonyms_for
from apps.core import csvsafe
from apps.core.archives import zip_folder
from apps.instructions.services import version_at
from apps.verification.models import ItemStatus, Review, VerificationProject


def export_project(project: VerificationProject, out_dir: Path, *, reviews_of_accepted_only: bool = False) -> dict:
    """Write the export into out_dir. A release (apps.releases.kinds.hpsu) asks for the reviews of accepted
    items only: rejected items and their reviews (rejected.jsonl) stay in the admin export."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    accepted = list(project.items.filter(status=ItemStatus.ACCEPTED).select_related("audio").order_by("position"))
    records = [json.loads(item.record) for item in accepted]
    (out_dir / "items.json").write_text(json.dumps(records, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    for item in accepted:
        target = out_dir / item.audio_path
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            with item.audio.file.open("rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
        record = json.loads(item.record)
        visual_rel = record.get("video_path") or record.get("image_path")
        if item.visual and visual_rel and not (out_dir / visual_rel).exists():
            (out_dir / visual_rel).parent.mkdir(parents=True, exist_ok=True)
            with item.visual.open("rb") as src, open(out_dir / visual_rel, "wb") as dst:
                shutil.copyfileobj(src, dst)

    reviews = Review.objects.filter(item__project=project)
    if reviews_of_accepted_only:
        reviews = reviews.filter(item__status=ItemStatus.ACCEPTED)
    # Names for the annotators this export shows, one row each (a release names no one who only reviewed
    # rejected items); without order_by(), DISTINCT would run over the ordering columns too.
    names = pseudonyms_for(reviews.order_by().values_list("annotator_id", flat=True).distinct(), project.pseudonym_scope)
    reviews = reviews.select_related("item").order_by("item__position", "created_at", "id")
    with open(out_dir / "reviews.csv", "w", encoding="utf-8", newline="") as fh:
        writer = csvsafe.writer(fh)
        writer.writerow(["item", "task", "annotator", "decision", "reasons", "comment", "seconds_spent", "changes",
                         "created_at", "updated_at", "item_status", "instructions_version"])
        instructions_at = version_at(project)  # the reviewer instructions in force when the decision was made
        count = 0
        for r in reviews:
            writer.writerow([r.item.external_id, r.item.task, names[r.annotator_id], r.decision,
                             ";".join(r.reasons), r.comment, round(r.seconds_spent, 1), r.changes,
                             r.created_at.isoformat(), r.updated_at.isoformat(), r.item.status,
                             instructions_at(r.updated_at)])
            count += 1
    if reviews_of_accepted_only:  # rejected items (and their reviews) stay in the admin export
        return {"accepted": len(accepted), "rejected": None, "reviews": count, "out": str(out_dir)}
    rejected = project.items.filter(status=ItemStatus.REJECTED).prefetch_related("reviews").order_by("position")
    n_rejected = 0
    with open(out_dir / "rejected.jsonl", "w", encoding="utf-8") as fh:
        for item in rejected:
            rejections = [
                {"annotator": names[r.annotator_id], "reasons": r.reasons, "comment": r.comment}
                for r in item.reviews.all() if r.decision == "reject"
            ]
            fh.write(json.dumps({"id": item.external_id, "record": json.loads(item.record), "rejections": rejections},
                                ensure_ascii=False) + "\n")
            n_rejected += 1
    return {"accepted": len(accepted), "rejected": n_rejected, "reviews": count, "out": str(out_dir)}


def export_zip(project: VerificationProject) -> bytes:
    """The same export as one zip archive, for the admin download."""
    with tempfile.TemporaryDirectory() as tmp:
        export_project(project, Path(tmp))
        buffer = io.BytesIO()
        zip_folder(Path(tmp), buffer)
        return buffer.getvalue()
