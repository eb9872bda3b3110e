"""The README a newcomer reads first points only at files the repository has, and neither it nor scripts/demo
promises a package count the install does not keep (issue 34: `../shared/DESIGN.md`, "about 60 packages")."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_file_the_readme_names_is_in_the_repository():
    """A path it gives from the repository's root exists, and none leads outside it (../)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    top = {p.name for p in ROOT.iterdir()} - {"data"}  # data/ is made at run time
    paths = [p for p in re.findall(r"`([^`\s]+/[^`\s]+)`", text) if not re.search(r"[<>{}*]", p)]
    outside = [p for p in paths if p.startswith("../") or "/../" in p]
    missing = [p for p in paths if p.split("/")[0] in top and not (ROOT / p).exists()]
    assert paths and outside == [] and missing == []


def test_no_package_count_is_promised():
    for path in ("README.md", "scripts/demo"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert not re.search(r"\d+\s+packages", text), path
