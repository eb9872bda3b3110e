"""One module per kind of release. Each offers:

    source(source_id) -> the object a release is built from (raises SourceMissing)
    selection(obj) -> {"source": ..., "id": ..., "name": ..., "statuses": [...]}  (stored on the release)
    default_sources(obj) -> [{"name", "license"}] it can tell by itself; default_license(obj) -> SPDX or None
    build(obj, folder, progress) -> Built: writes audio/ and any extra files into `folder`, returns the rows

The release machinery (apps.releases.building) writes the data files, card, provenance and checksums."""

import re
from dataclasses import dataclass, field


class SourceMissing(LookupError):
    pass


@dataclass
class Item:
    item_id: str
    config: str
    split: str
    row: dict  # the JSONL row; `audio` is the relative path of its file
    provenance: dict  # the provenance.jsonl line, pseudonyms only
    people: dict = field(default_factory=dict)  # pseudonym -> user id (kept in the database only)
    reason: str = ""
    audio_sha256: str = ""


@dataclass
class Built:
    columns: dict[str, dict[str, str]]  # config -> {column: kind}
    items: list[Item]
    excluded: dict[str, str] = field(default_factory=dict)  # item id -> why it is not in the release
    statistics: dict = field(default_factory=dict)
    how_built: list[str] = field(default_factory=list)  # Markdown bullet lines for the card
    task_categories: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    extra_files: dict[str, str] = field(default_factory=dict)  # relative path -> what it is (for the card)
    config_rows: dict[str, dict[str, list[dict]]] | None = None  # rows that are not items (MOS ratings)
    languages: list[str] | None = None  # card languages when rows carry none; default ko


class Ticker:
    """Reports progress about a hundred times over a run, not once an item: each report is two queries."""

    def __init__(self, progress, total: int, message: str):
        self.progress, self.total, self.done = progress, total, 0
        self.every = max(1, total // 100)
        progress.set_total(total, message=message)

    def tick(self, message: str | None = None) -> None:
        self.done += 1
        if self.done % self.every == 0 or self.done == self.total:
            self.progress.set_done(self.done, message)


def registry():
    # Imported here, not at module level: each kind imports its workflow app's models.
    from apps.releases.kinds import hpsu, kmmau, mos, spoken_qa

    return {"mos": mos, "hpsu": hpsu, "spoken-qa": spoken_qa, "kmmau": kmmau}


def safe_name(text: str, fallback: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or fallback
