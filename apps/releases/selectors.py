"""Reads of the releases app: lists, one item's provenance (a bounded number of queries whatever its history)
and the diff between two versions of a dataset."""

from dataclasses import dataclass, field

from django.db.models import Count, Exists, OuterRef, Q

from apps.accounts.models import User
from apps.agents.models import AgentCall
from apps.releases.models import Release, ReleaseItem, ReleaseStatus


def releases():
    return Release.objects.select_related("built_by", "published_by", "job").order_by("name", "-created_at", "-id")


def versions_of(name: str):
    return Release.objects.filter(name=name, status__in=[ReleaseStatus.BUILT, ReleaseStatus.PUBLISHED])


@dataclass
class Provenance:
    item: ReleaseItem
    calls: list  # AgentCall rows, in the order the provenance lists them
    decisions: list[dict]  # each with "person" (a User) for admins
    rulebook_versions: list[str]
    synthesis: list[dict]
    source: dict


def item_provenance(release: Release, item_id: str, *, viewer) -> Provenance:
    """Three queries: the item, its agent calls, and (for admins) the people behind the pseudonyms."""
    item = ReleaseItem.objects.get(release=release, item_id=item_id)
    data = item.provenance
    listed = [c["id"] for c in data.get("agent_calls", [])]
    by_id = {c.pk: c for c in AgentCall.objects.filter(pk__in=listed).only(
        "id", "role", "provider", "model", "prompt_name", "prompt_version", "input_hash", "status", "cost_usd",
        "created_at", "job_id")} if listed else {}
    decisions = [dict(d) for d in data.get("human_decisions", {}).get("decisions", [])]
    if viewer.is_sori_admin and item.people:
        users = User.objects.in_bulk([uid for uid in item.people.values() if uid])
        for d in decisions:
            d["person"] = users.get(item.people.get(d["by"]))
    return Provenance(item=item, calls=[by_id[c] for c in listed if c in by_id], decisions=decisions,
                      rulebook_versions=data.get("rulebook_versions", []), synthesis=data.get("synthesis", []),
                      source=data.get("source", {}))


@dataclass
class Change:
    item_id: str
    fields: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass
class Diff:
    old: Release
    new: Release
    added: list[Change]
    removed: list[Change]
    changed: list[Change]

    @property
    def unchanged(self) -> int:
        return self.new.item_count - len(self.added) - len(self.changed)


def diff(old: Release, new: Release) -> Diff:
    """Items added, removed and changed from `old` to `new`. A changed item names the fields that differ
    (`audio` when its bytes changed) and the reason the new version records; a removed item gives the reason
    the new build left it out, when it recorded one."""
    def index(release):
        return {i["item_id"]: i for i in release.items.values("item_id", "content_sha256", "row", "reason")}

    before, after = index(old), index(new)
    excluded = new.manifest.get("excluded", {})
    was_excluded = old.manifest.get("excluded", {})
    # Exclusions of an item's parts (a rating of a clip: "rating:<clip>:<listener>") explain its change.
    parts: dict[str, list[str]] = {}
    for key, why in excluded.items():
        pieces = key.split(":")
        if len(pieces) == 3 and key not in was_excluded:
            parts.setdefault(pieces[1], []).append(why)
    added = [Change(i, reason=after[i]["reason"]) for i in sorted(after.keys() - before.keys())]
    removed = [Change(i, reason=excluded.get(i, "")) for i in sorted(before.keys() - after.keys())]
    changed = []
    for item_id in sorted(before.keys() & after.keys()):
        a, b = before[item_id], after[item_id]
        if a["content_sha256"] == b["content_sha256"]:
            continue
        fields = sorted(k for k in a["row"].keys() | b["row"].keys() if a["row"].get(k) != b["row"].get(k))
        reasons = ([b["reason"]] if b["reason"] != a["reason"] else []) + sorted(set(parts.get(item_id, [])))
        changed.append(Change(item_id, fields=fields or ["audio"], reason="; ".join(r for r in reasons if r)))
    return Diff(old=old, new=new, added=added, removed=removed, changed=changed)


def counts_by_kind() -> dict[str, dict[str, int]]:
    """{kind: {"total": releases built or published, "published": n}} in one query, for the admin's home page."""
    rows = (Release.objects.filter(status__in=[ReleaseStatus.BUILT, ReleaseStatus.PUBLISHED]).order_by()
            .values("kind").annotate(total=Count("id"), published=Count("id", filter=Q(status=ReleaseStatus.PUBLISHED))))
    return {row["kind"]: {"total": row["total"], "published": row["published"]} for row in rows}


def failed_builds():
    """Failed builds no later build of the same dataset has made good: a failure that a rebuild fixed is history,
    not something to do."""
    fixed_later = Release.objects.filter(name=OuterRef("name"), created_at__gt=OuterRef("created_at"),
                                         status__in=[ReleaseStatus.BUILT, ReleaseStatus.PUBLISHED])
    return Release.objects.filter(status=ReleaseStatus.FAILED).exclude(Exists(fixed_later)).order_by("-created_at", "-id")
