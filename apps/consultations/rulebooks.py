"""Writing and reading rulebook versions: loading the repository files (idempotent), writing a version
back as files, publishing a new version, and the diff between two versions."""

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext

from apps.consultations import rulebook_files as files
from apps.consultations.models import Rule, Rulebook, RulebookVersion
from apps.core.errors import Conflict


class RulebookConflict(Conflict):
    """A file says something different about a version that is already published."""


@dataclass
class LoadOutcome:
    path: Path
    version: RulebookVersion
    created: bool


def load_rulebooks(root: Path | None = None) -> list[LoadOutcome]:
    """Load every `v<N>.yaml` under root. A version already in the database is left alone when the file
    says the same; a file that differs from a published version is refused (versions are immutable)."""
    root = Path(root or settings.RULEBOOKS_DIR)
    outcomes = []
    with transaction.atomic():
        for path in files.discover(root):
            spec = files.parse_file(path)
            version, created = load_version(spec, source=f"file {path.relative_to(root)}")
            if not created and version_spec(version) != spec:
                raise RulebookConflict(
                    gettext(
                        "%(path)s: %(rulebook)s v%(version)s is already published with different rules; "
                        "published versions never change, so write a new version file instead"
                    ) % {"path": path, "rulebook": spec.rulebook, "version": spec.version}
                )
            outcomes.append(LoadOutcome(path, version, created))
    return outcomes


@transaction.atomic
def load_version(spec: files.VersionSpec, *, source: str, user=None) -> tuple[RulebookVersion, bool]:
    rulebook, _ = Rulebook.objects.get_or_create(
        slug=spec.rulebook, defaults={"language": spec.language, "kind": spec.kind, "title": spec.title}
    )
    if (rulebook.language, rulebook.kind) != (spec.language, spec.kind.value):
        raise RulebookConflict(
            gettext("%(rulebook)s is a %(language)s %(kind)s rulebook, not %(language2)s %(value)s") % {
                "rulebook": spec.rulebook,
                "language": rulebook.language,
                "kind": rulebook.kind,
                "language2": spec.language,
                "value": spec.kind.value,
            }
        )
    existing = RulebookVersion.objects.filter(rulebook=rulebook, number=spec.version).first()
    if existing:
        return existing, False
    version = RulebookVersion.objects.create(
        rulebook=rulebook, number=spec.version, notes=spec.notes, source=source[:200], created_by=user
    )
    Rule.objects.bulk_create(
        Rule(
            version=version,
            position=i,
            rule_id=r.id,
            category=r.category,
            statement=r.statement,
            examples=[e.model_dump() for e in r.examples],
            scope=r.scope.model_dump(),
            provenance=r.provenance,
            data=r.data,
        )
        for i, r in enumerate(spec.rules, start=1)
    )
    return version, True


def version_spec(version: RulebookVersion) -> files.VersionSpec:
    rulebook = version.rulebook
    return files.VersionSpec.model_validate(
        {
            "rulebook": rulebook.slug,
            "language": rulebook.language,
            "kind": rulebook.kind,
            "title": rulebook.title,
            "version": version.number,
            "notes": version.notes,
            "rules": [rule.content() for rule in version.rules.all()],
        }
    )


def export_version(version: RulebookVersion, root: Path | None = None) -> tuple[Path, Path]:
    """Write `v<N>.yaml` and `v<N>.md` for a version, so it can be reviewed and committed like code."""
    root = Path(root or settings.RULEBOOKS_DIR)
    spec = version_spec(version)
    folder = files.version_dir(root, spec.language, spec.kind.value)
    folder.mkdir(parents=True, exist_ok=True)
    yaml_path, md_path = folder / f"v{spec.version}.yaml", folder / f"v{spec.version}.md"
    yaml_path.write_text(files.dump_yaml(spec), encoding="utf-8")
    md_path.write_text(files.render_markdown(spec), encoding="utf-8")
    return yaml_path, md_path


def get_version(slug: str, number: int) -> RulebookVersion:
    return RulebookVersion.objects.select_related("rulebook").get(rulebook__slug=slug, number=number)


@dataclass
class RuleChange:
    rule_id: str
    before: Rule | None
    after: Rule | None

    @property
    def kind(self) -> str:
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        return "changed"

    @property
    def changed_fields(self) -> list[str]:
        if not (self.before and self.after):
            return []
        a, b = self.before.content(), self.after.content()
        return [key for key in ("category", "statement", "examples", "scope") if a[key] != b[key]]


def diff_versions(old: RulebookVersion, new: RulebookVersion) -> list[RuleChange]:
    """Rules added, changed (same stable id, different content) and removed between two versions."""
    before = {r.rule_id: r for r in old.rules.all()}
    after = {r.rule_id: r for r in new.rules.all()}
    changes = []
    for rule_id, rule in after.items():
        if rule_id not in before:
            changes.append(RuleChange(rule_id, None, rule))
        elif RuleChange(rule_id, before[rule_id], rule).changed_fields:
            changes.append(RuleChange(rule_id, before[rule_id], rule))
    changes += [RuleChange(rule_id, rule, None) for rule_id, rule in before.items() if rule_id not in after]
    return changes


@transaction.atomic
def publish_version(
    rulebook: Rulebook, *, additions: list[dict], removals: list[str] = (), notes: str, source: str, user=None
) -> RulebookVersion:
    """The next version: the latest version's rules, with `additions` (rule dicts as in the files) added or
    replacing the rule of the same id, and `removals` dropped. New rows throughout; the old version stays."""
    latest = Rulebook.objects.select_for_update().get(pk=rulebook.pk).latest_version()
    rules = [r.content() for r in latest.rules.all()] if latest else []
    by_id = {r["id"]: i for i, r in enumerate(rules)}
    for addition in additions:
        if addition["id"] in by_id:
            rules[by_id[addition["id"]]] = addition
        else:
            by_id[addition["id"]] = len(rules)
            rules.append(addition)
    rules = [r for r in rules if r["id"] not in set(removals)]
    spec = files.VersionSpec.model_validate(
        {
            "rulebook": rulebook.slug,
            "language": rulebook.language,
            "kind": rulebook.kind,
            "title": rulebook.title,
            "version": (latest.number + 1) if latest else 1,
            "notes": notes,
            "rules": rules,
        }
    )
    version, _ = load_version(spec, source=source, user=user)
    return version
