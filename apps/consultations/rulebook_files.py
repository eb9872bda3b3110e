"""The rulebook file format under `rulebooks/<language>/<kind>/`: `v<N>.yaml` holds the rules, `v<N>.md` is
the same version rendered for reading. Parsing validates every field and names the file and rule on error;
dumping is canonical, so exporting a loaded version writes the very bytes it was loaded from."""

from pathlib import Path

import yaml
from django.utils.translation import gettext
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from apps.consultations.models import RulebookKind
from apps.core.errors import InvalidInput


class RulebookFileError(InvalidInput):
    """A rulebook file that cannot be loaded; the message names the file and the rule or field."""


class Example(BaseModel):
    model_config = ConfigDict(extra="forbid")
    input: str
    output: str


class Scope(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task_types: list[str] = Field(default_factory=list)
    subsets: list[str] = Field(default_factory=list)


class RuleSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, max_length=80, pattern=r"^[a-z0-9][a-z0-9._-]*$")
    category: str = Field(min_length=1, max_length=80)
    statement: str = Field(min_length=1)
    examples: list[Example] = Field(default_factory=list)
    scope: Scope = Field(default_factory=Scope)
    provenance: dict = Field(default_factory=dict)
    data: dict | None = None  # tables for a deterministic engine (normalization v2 on); omitted when absent

    @field_validator("provenance")
    @classmethod
    def _has_source(cls, value: dict) -> dict:
        if not value.get("source"):
            raise ValueError("provenance needs a 'source' (seeded, or consultation)")
        return value


class VersionSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rulebook: str = Field(min_length=1, max_length=80, pattern=r"^[a-z0-9-]+$")
    language: str = Field(min_length=2, max_length=10)
    kind: RulebookKind
    title: str
    version: int = Field(ge=1)
    notes: str = ""
    rules: list[RuleSpec]

    @field_validator("rules")
    @classmethod
    def _unique_ids(cls, rules: list[RuleSpec]) -> list[RuleSpec]:
        seen = set()
        for rule in rules:
            if rule.id in seen:
                raise ValueError(f"rule id {rule.id!r} appears twice")
            seen.add(rule.id)
        return rules


def parse_file(path: Path) -> VersionSpec:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise RulebookFileError(gettext("%(path)s: not valid YAML: %(exc)s") % {"path": path, "exc": exc}) from None
    try:
        spec = VersionSpec.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(_describe(err, raw) for err in exc.errors())
        raise RulebookFileError(gettext("%(path)s: %(problems)s") % {"path": path, "problems": problems}) from None
    if path.stem != f"v{spec.version}":
        raise RulebookFileError(gettext(
            "%(path)s: the file name must be v%(version)s.yaml for version %(version)s"
        ) % {"path": path, "version": spec.version})
    return spec


def _describe(err: dict, raw) -> str:
    loc = list(err["loc"])
    where = ".".join(str(part) for part in loc)
    if len(loc) >= 2 and loc[0] == "rules" and isinstance(loc[1], int):
        try:
            where = f"rule {raw['rules'][loc[1]].get('id', '#' + str(loc[1] + 1))}: " + ".".join(str(p) for p in loc[2:])
        except (KeyError, IndexError, TypeError, AttributeError):
            pass
    return f"{where}: {err['msg']}"


def discover(root: Path) -> list[Path]:
    """Every version file under root, lowest version first per rulebook."""
    return sorted(root.glob("*/*/v*.yaml"), key=lambda p: (p.parent, int(p.stem[1:]) if p.stem[1:].isdigit() else 0))


def version_dir(root: Path, language: str, kind: str) -> Path:
    return root / language / kind


def dump_yaml(spec: VersionSpec) -> str:
    data = spec.model_dump(mode="json")
    rules = [{k: (_sorted_keys(v) if k == "data" else v) for k, v in rule.items() if not (k == "data" and v is None)}
             for rule in data.pop("rules")]
    head = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=110)
    body = yaml.dump(
        {"rules": rules}, Dumper=_FlowListDumper, allow_unicode=True, sort_keys=False, width=10_000
    )
    return head + body


class _FlowListDumper(yaml.SafeDumper):
    """Lists of plain strings (scope subsets, task types) are written inline, as the hand-written files do."""


def _represent_list(dumper, data):
    flow = all(isinstance(item, str) for item in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_FlowListDumper.add_representer(list, _represent_list)


def render_markdown(spec: VersionSpec) -> str:
    lines = [
        f"# {spec.title}, version {spec.version}",
        "",
        f"Rulebook `{spec.rulebook}` (language `{spec.language}`, kind {spec.kind.value}). "
        f"Generated from `v{spec.version}.yaml` by `python manage.py export_rulebook {spec.rulebook} "
        f"--version {spec.version}`; edit the rules through a consultation round, not by hand.",
        "",
    ]
    if spec.notes:
        lines += [spec.notes.strip(), ""]
    categories: dict[str, list[RuleSpec]] = {}
    for rule in spec.rules:
        categories.setdefault(rule.category, []).append(rule)
    lines += ["## Categories", ""]
    lines += [f"- {category_label(c)} ({len(rs)})" for c, rs in categories.items()]
    lines.append("")
    for category, rules in categories.items():
        lines += [f"## {category_label(category)}", ""]
        for rule in rules:
            lines += [f"### `{rule.id}`", "", rule.statement, ""]
            scope = []
            if rule.scope.task_types:
                scope.append("task types: " + ", ".join(rule.scope.task_types))
            if rule.scope.subsets:
                scope.append("subsets: " + ", ".join(rule.scope.subsets))
            lines += [f"Scope: {'; '.join(scope) if scope else 'all samples'}", ""]
            if rule.examples:
                lines += ["| input | expected output |", "|---|---|"]
                lines += [f"| {_cell(ex.input)} | {_cell(ex.output)} |" for ex in rule.examples]
                lines.append("")
            for name, table in _sorted_keys(rule.data or {}).items():
                lines += [f"Table `{name}`: {_table_text(table)}", ""]
            lines += [f"Provenance: {provenance_text(rule.provenance)}", ""]
    return "\n".join(lines).rstrip() + "\n"


def _sorted_keys(value):
    """Tables in key order: PostgreSQL's jsonb does not keep the order a file wrote, so the files use this one."""
    if isinstance(value, dict):
        return {k: _sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_keys(v) for v in value]
    return value


def _table_text(table) -> str:
    if isinstance(table, dict):
        return ", ".join(f"{k} = {v}" for k, v in table.items())
    if isinstance(table, list):
        return ", ".join(str(v) for v in table)
    return str(table)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def category_label(category: str) -> str:
    return category.replace("_", " ").capitalize()


def provenance_text(provenance: dict) -> str:
    if provenance.get("source") == "seeded":
        return f"seeded from {provenance.get('reference', 'the starting skeleton')}"
    parts = [provenance.get("source", "unknown")]
    for key, label in [
        ("round", "round"),
        ("question", "question"),
        ("question_title", None),
        ("decision", "decision:"),
        ("answered_by", "answered by"),
        ("decided_by", "decided by"),
        ("decided_at", "on"),
        ("approved_by", "approved by"),
        ("approved_at", "on"),
    ]:
        value = provenance.get(key)
        if isinstance(value, list):
            value = ", ".join(str(v) for v in value)
        if value not in (None, ""):
            parts.append(f"{label} {value}" if label else f"\u201c{value}\u201d")
    if provenance.get("edited_on_approval"):
        parts.append("wording edited on approval")
    return ", ".join(str(p) for p in parts)
