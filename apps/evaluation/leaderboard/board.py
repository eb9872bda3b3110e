"""The typed leaderboard: what GET /api/evaluation/leaderboard/ returns, its schema (drf-spectacular reads these
pydantic models through drf_spectacular.contrib.pydantic), and what the page and the CSV, JSON and Markdown
exports read. One shape: a field's Python name is what the code says (`table1`, `cells`, `en`), its alias the
API's word for it (`benchmarks`, `scores`, `english`); `Board.as_json()` is the response. Fields marked
`exclude=True` are for the page only (a cell's subset link, the missing subsets in words)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer


class _Part(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


class Cell(_Part):
    """One score on the board: 0-100, the items behind it (n), the run it links to, its mark among the row's
    models (bold "best", underlined "second", or ""), and for a benchmark mean the subsets it has and lacks."""

    model: int | None = Field(None, description="the model's id (its column)")
    score: float | None = Field(None, description="0-100; null when not scored or a subset is missing")
    n: int = Field(0, description="scored items behind the score")
    run_id: int | None = Field(None, alias="run",
                               description="the run it comes from (its items: /api/evaluation/runs/<run>/items/)")
    subsets: tuple[str, ...] = Field((), description="the subsets a benchmark mean has")
    missing: tuple[str, ...] = Field((), description="the subsets a benchmark mean lacks")
    mark: Literal["best", "second", ""] = Field("", description="bold (best) or underlined (second) in the row")
    version: str = Field("", description="the reader (and judge) versions behind the score")
    subset: str = Field("", exclude=True)  # the stored subset a subset cell links to ("" for several splits)
    missing_labels: tuple[str, ...] = Field((), exclude=True)  # the missing subsets in words, for the page

    @field_serializer("score")
    def _rounded(self, score: float | None) -> float | None:
        return None if score is None else round(score, 4)

    @property
    def empty(self) -> bool:
        return self.score is None and not self.missing and self.run_id is None


class ModelColumn(_Part):
    id: int
    name: str
    version: str
    label: str
    demo: bool = Field(description="demo answers, not a real model")

    def __str__(self) -> str:
        return self.label


class BenchmarkRow(_Part):
    """Table 1: one benchmark, its mean per model."""

    name: str
    label: str = Field(description="VoiceBench, KVoiceBench, OpenAudioBench, KOpenAudioBench or KMMAU")
    section: str
    kind: str
    language: str
    subsets: list[str] = Field(description="the subsets its mean is over")
    cells: list[Cell] = Field(alias="scores")


class SubsetRow(_Part):
    """Table 5: one subset, English and Korean per model and the gap."""

    key: str = Field(alias="subset")
    label: str
    ko_label: str = Field(alias="korean_label")
    en: list[Cell] = Field(alias="english")
    ko: list[Cell] = Field(alias="korean")
    gap: list[Cell] = Field(description="Korean minus English")


class SourcePair(_Part):
    """Table 5 for one English source benchmark and its Korean release."""

    kind: str
    source: str = Field(description="the English source benchmark")
    en: str = Field(alias="english", description="the English benchmark's name, empty when not evaluated")
    ko: str = Field(alias="korean", description="the Korean benchmark's name, empty when not evaluated")
    label: str = Field(exclude=True)  # VoiceBench, for the page and the Markdown
    ko_label: str = Field(exclude=True)  # KVoiceBench
    rows: list[SubsetRow]


class CapabilityRow(_Part):
    """Table 6: one KMMAU capability."""

    key: str = Field(alias="capability")
    label: str
    category: str
    cells: list[Cell] = Field(alias="scores")


class KmmauTable(_Part):
    name: str
    rows: list[CapabilityRow] = Field(alias="capabilities")
    average: list[Cell]


class Board(_Part):
    """Tables 1, 5 and 6 under one reading profile, with the rank agreements and how each run was judged."""

    profile: Literal["sori", "voicebench"] = Field(description="the reading profile of every number")
    models: list[ModelColumn]
    table1: list[BenchmarkRow] = Field(default_factory=list, alias="benchmarks", description="Table 1")
    table5: list[SourcePair] = Field(default_factory=list, alias="subsets", description="Table 5")
    table6: KmmauTable | None = Field(None, alias="kmmau", description="Table 6")
    agreements: list[dict[str, Any]] = Field(default_factory=list, alias="rank_agreement", description=(
        "per SpokenQA and audio-understanding benchmark pair: spearman, kendall, n and ranks, or `refused`"))
    judges: list[dict[str, Any]] = Field(default_factory=list, description=(
        "per judged run: run, benchmark, model, judge_model, n, temperature, top_p, requests, and `refused`: the "
        "sampling settings the judge model refused (then it sampled at its own default, not as VoiceBench's judge)"))
    gaps: list[dict[str, Any]] = Field(default_factory=list, exclude=True)  # {"kind", "subset", "label", "model", "gap"}

    @property
    def demo_models(self) -> list[ModelColumn]:
        return [m for m in self.models if m.demo]

    def as_json(self) -> dict:
        return self.model_dump(mode="json", by_alias=True)
