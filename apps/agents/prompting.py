"""Prompts are versioned files, not strings in code: apps/agents/prompts/<name>/v<N>.md, each a Django
template (rendered without HTML escaping) after a short YAML front matter:

    ---
    version: 1
    description: what the prompt asks
    system: |
      optional system prompt (also a template)
    ---
    The user message, with {{ variables }} and {{ value|json }} for JSON.

The highest version is used unless a caller pins one; the version used is recorded on every call."""

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml
from django.template import Context, Engine

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
_VERSION_FILE = re.compile(r"^v(\d+)\.md$")
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n(.*)\Z", re.S)


class PromptError(Exception):
    pass


_engine = Engine(autoescape=False, builtins=["apps.agents.templatetags.prompt_filters"])


@dataclass(frozen=True)
class Prompt:
    name: str
    version: int
    description: str
    system_template: str
    body_template: str
    path: Path

    def render(self, variables: dict) -> tuple[str, str]:
        """-> (system, user message)"""
        context = Context(variables, autoescape=False)
        system = _engine.from_string(self.system_template).render(context).strip() if self.system_template else ""
        user = _engine.from_string(self.body_template).render(context).strip()
        return system, user


def available_versions(name: str, base: Path | None = None) -> list[int]:
    folder = (base or PROMPTS_DIR) / name
    if not folder.is_dir():
        return []
    return sorted(int(m.group(1)) for f in folder.iterdir() if (m := _VERSION_FILE.match(f.name)))


def load_prompt(name: str, version: int | None = None, *, base: Path | None = None) -> Prompt:
    if not re.fullmatch(r"[a-z0-9_]+", name):
        raise PromptError(f"prompt name {name!r}: use lower-case letters, digits and underscores")
    versions = available_versions(name, base)
    if not versions:
        raise PromptError(f"no prompt files in {(base or PROMPTS_DIR) / name}/ (expected v1.md, v2.md, ...)")
    chosen = version if version is not None else versions[-1]
    if chosen not in versions:
        raise PromptError(f"prompt {name!r} has no version {chosen} (available: {versions})")
    return _parse((base or PROMPTS_DIR) / name / f"v{chosen}.md", name, chosen)


@lru_cache(maxsize=256)
def _parse_cached(path: Path, mtime: float, name: str, version: int) -> Prompt:
    text = path.read_text(encoding="utf-8")
    match = _FRONT_MATTER.match(text)
    if not match:
        raise PromptError(f"{path}: missing YAML front matter between '---' lines")
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise PromptError(f"{path}: front matter is not valid YAML: {exc}") from None
    if meta.get("version") != version:
        raise PromptError(f"{path}: front matter says version {meta.get('version')!r}, the file name says {version}")
    return Prompt(
        name=name, version=version, description=str(meta.get("description", "")),
        system_template=str(meta.get("system") or ""), body_template=match.group(2), path=path,
    )


def _parse(path: Path, name: str, version: int) -> Prompt:
    return _parse_cached(path, path.stat().st_mtime, name, version)
