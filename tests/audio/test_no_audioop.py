"""Python 3.13 removed audioop, and pydub (unmaintained) needs it: audio work is soundfile, numpy and
ffmpeg (apps.audio.pcm, apps.audio.ffmpeg). Nothing in the project may import either again."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GONE = {"pydub", "audioop"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_nothing_imports_pydub_or_audioop():
    sources = [p for folder in ("apps", "config", "workers", "tests", "benchmarks", "scripts")
               for p in (ROOT / folder).rglob("*.py")]
    assert len(sources) > 100
    offenders = sorted(str(p.relative_to(ROOT)) for p in sources if imported_modules(p) & GONE)
    assert offenders == []


def test_pyproject_does_not_depend_on_pydub():
    assert "pydub" not in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
