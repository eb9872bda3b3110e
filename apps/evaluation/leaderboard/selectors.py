"""The leaderboard's selectors: seed 000 Tables 1, 5 and 6 built from the runs' stored SubsetScore rows, the
English-Korean gaps, the SpokenQA and audio-understanding rank agreement, and two runs compared item by item.

Nothing here scores anything: a subset's score is the SubsetScore the evaluation stored (its primary method, with
its n), and a benchmark's score is aggregate.benchmark_score over the subsets seed 000 averages: VoiceBench and
KVoiceBench over nine, OpenAudioBench and KOpenAudioBench over four, KMMAU over its nine capabilities. A benchmark
with a subset missing shows the subsets it has and names the ones it lacks instead of a smaller mean.

Every number is read under one reading profile (apps.evaluation.scoring.PROFILES: `sori`, the default, or
`voicebench`), which the board names, and each cell names the reader versions behind it: English and Korean are
only ever set side by side, and a gap only ever computed, under the same profile.

A model's column holds, per benchmark, its newest run with subset scores under that profile. Which English source
benchmark and which kind of benchmark a run measures are the run's own columns (english_source, kind: what
create_run knew), so KVoiceBench lines up with VoiceBench subset by subset."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import F
from django.utils.translation import gettext

from apps.authoring.capabilities import SPECS, Capability
from apps.core.errors import Conflict, InvalidInput
from apps.evaluation.leaderboard.board import (
    BenchmarkRow,
    Board,
    CapabilityRow,
    Cell,
    KmmauTable,
    ModelColumn,
    SourcePair,
    SubsetRow,
)
from apps.evaluation.models import (
    AnswerSource,
    EvaluatedModel,
    EvaluationRun,
    ItemScore,
    Language,
    ScoreMethod,
    SubsetScore,
)
from apps.evaluation.scoring import DEFAULT_PROFILE, PROFILES
from apps.sources import catalogue

VOICEBENCH, OPENAUDIOBENCH, KMMAU = "voicebench", "openaudiobench", "kmmau"
SPOKEN_QA, AUDIO = "SpokenQA", "Audio Understanding"

# Table 5's row order (AlpacaEval once for each benchmark that has it), from the one catalogue.
SUBSET_ORDER = catalogue.table_order()
BENCHMARK_LABELS = {(VOICEBENCH, "en"): "VoiceBench", (VOICEBENCH, "ko"): "KVoiceBench",
                    (OPENAUDIOBENCH, "en"): "OpenAudioBench", (OPENAUDIOBENCH, "ko"): "KOpenAudioBench",
                    (KMMAU, "ko"): "KMMAU", (KMMAU, "en"): "MMAU"}


def _aggregate():
    # On first use: aggregate loads scipy (seconds), and this module loads with every web process's URLs.
    from apps.evaluation import aggregate

    return aggregate


def _norm(text: str) -> str:
    return re.sub(r"[^0-9a-z가-힣]", "", text.lower())


def kind_subsets(kind: str) -> tuple[str, ...]:
    """The subsets seed 000 averages for a benchmark kind (the keys a benchmark's mean needs)."""
    if kind == KMMAU:
        return tuple(c.value for c in Capability)
    aggregate = _aggregate()
    return tuple(aggregate.VOICEBENCH_SUBSETS if kind == VOICEBENCH else aggregate.OPENAUDIOBENCH_SUBSETS)


def subset_key(kind: str, subset: str) -> str | None:
    """The averaged subset a stored subset belongs to: itself, or its family for a regional or per-domain split
    ("sd-qa-usa" is sd-qa, "mmsu_biology" is mmsu); for KMMAU the capability by its key or label ("Role/Profession")."""
    keys = kind_subsets(kind)
    if kind == KMMAU:
        by_name = {_norm(c.value): c.value for c in Capability} | {_norm(c.label): c.value for c in Capability}
        return by_name.get(_norm(subset))
    found = catalogue.match(subset, family=kind)
    return found[0].name if found and found[0].name in keys else None


def subset_label(kind: str, key: str, language: str = "en") -> str:
    """A subset's display name as seed 000's tables print it (apps.sources.catalogue): KOpenBookQA, KLlamaQ."""
    if kind == KMMAU:
        return Capability(key).label
    found = catalogue.match(key, family=kind)
    if found is None:
        return f"K{key}" if language == Language.KOREAN else key
    return found[0].label_ko if language == Language.KOREAN else found[0].label


def subset_name(stored: str) -> str:
    """A stored subset in words, as the paper's tables name it: a KMMAU capability by its label ("Fact
    Extraction"), a spoken-QA subset by its display name, a regional or per-domain split with its part in
    brackets ("SD-QA (usa)", "MMSU (biology)"); a name Sori does not know stays as it is."""
    if (capability := subset_key(KMMAU, stored)) is not None:
        return Capability(capability).label
    found = catalogue.match(stored)  # (no aggregate here: a run page should not load scipy to name its subsets)
    if found is None or found[0].family not in catalogue.SPOKEN_QA_FAMILIES:
        return stored
    subset, part = found
    return f"{subset.label} ({part})" if part else subset.label


# --- pure building blocks ----------------------------------------------------------------------------------
def combine(parts: list[tuple[float, int]]) -> tuple[float, int]:
    """One subset from its stored splits (sd-qa's regions, mmsu's domains): the mean over all their items."""
    n = sum(k for _, k in parts)
    return (sum(s * k for s, k in parts) / n if n else sum(s for s, _ in parts) / len(parts)), n


def benchmark_cell(kind: str, scores: dict[str, tuple[float, int]], run_id: int | None = None,
                   versions: dict[str, str] | None = None) -> Cell:
    """A benchmark's mean over its subsets (aggregate.benchmark_score), or, with a subset missing, no mean and
    the missing subsets named. `scores`: subset key -> (0-100, n); `versions`: subset key -> reader versions."""
    wanted = kind_subsets(kind)
    have = tuple(s for s in wanted if s in scores)
    missing = tuple(s for s in wanted if s not in scores)
    n = sum(scores[s][1] for s in have)
    version = join_versions((versions or {}).get(s, "") for s in have)
    if missing:
        return Cell(n=n, run_id=run_id, subsets=have, missing=missing, version=version,
                    missing_labels=tuple(subset_label(kind, k) for k in missing))
    value = _aggregate().benchmark_score({k: v for k, (v, _) in scores.items()}, wanted)
    return Cell(score=value, n=n, run_id=run_id, subsets=have, version=version)


def join_versions(versions) -> str:
    """Distinct reader versions, in a stable order, as one label ("mcq-sori-1 + qa-sori-1")."""
    parts = {p.strip() for v in versions for p in v.split(" + ") if p.strip()}
    return " + ".join(sorted(parts))


def mark_row(cells: list[Cell]) -> None:
    """Bold and underline as the paper: the best score of the row and the second best (ties share a mark)."""
    values = sorted({round(c.score, 6) for c in cells if c.score is not None}, reverse=True)
    for cell in cells:
        if cell.score is None:
            continue
        value = round(cell.score, 6)
        cell.mark = "best" if value == values[0] else "second" if len(values) > 1 and value == values[1] else ""


def rank_agreement(a: dict[str, float], b: dict[str, float]) -> dict:
    """Spearman and Kendall (scipy, through aggregate) of two rankings over the models both have, with the
    rank of each model on each; refused with fewer than three models in common (no ranking to compare)."""
    result = _aggregate().rank_agreement(a, b)
    return {"n": result["n"], "spearman": result["spearman"]["rho"], "kendall": result["kendall"]["tau"],
            "ranks": {k: (r["a"], r["b"]) for k, r in result["ranks"].items()}}


# --- reading the runs --------------------------------------------------------------------------------------
@dataclass
class _Benchmark:
    name: str
    kind: str
    language: str
    source: str  # the English source benchmark's name ("" for KMMAU)
    runs: dict[int, EvaluationRun] = field(default_factory=dict)  # model id -> newest run with scores
    scores: dict[int, dict[str, tuple[float, int]]] = field(default_factory=dict)  # model id -> subset key -> (score, n)
    stored: dict[int, dict[str, str]] = field(default_factory=dict)  # model id -> subset key -> stored subset name
    versions: dict[int, dict[str, str]] = field(default_factory=dict)  # model id -> subset key -> reader versions


def check_profile(profile: str) -> str:
    if profile not in PROFILES:
        raise InvalidInput(gettext(
            "profile must be one of %(profiles)s, not %(profile)r"
        ) % {"profiles": ', '.join(PROFILES), "profile": profile}, field="profile")
    return profile


def scored_runs(profile: str | None = None):
    """Runs with current subset scores (under `profile`, or any), newest first (the leaderboard takes a model's
    newest per benchmark)."""
    scored = {"subset_scores__current": True} | ({"subset_scores__profile": profile} if profile else {})
    return (EvaluationRun.objects.filter(**scored).distinct()
            .select_related("model", "english_source")
            .order_by(F("evaluated_at").desc(nulls_last=True), "-created_at", "-id"))


def _benchmarks(models: list[EvaluatedModel] | None, profile: str) -> list[_Benchmark]:
    runs = list(scored_runs(profile).filter(model__in=models) if models is not None else scored_runs(profile))
    rows = defaultdict(list)
    for s in SubsetScore.objects.filter(run__in=runs, primary=True, current=True, profile=profile).order_by("subset"):
        rows[s.run_id].append(s)
    benchmarks: dict[str, _Benchmark] = {}
    for run in runs:  # newest first: the first run of a model on a benchmark is the one shown
        kind = run.kind
        bench = benchmarks.setdefault(run.benchmark_name, _Benchmark(
            run.benchmark_name, kind, run.language, run.english_source.name if run.english_source else ""))
        if run.model_id in bench.runs:
            continue
        bench.runs[run.model_id] = run
        parts: dict[str, list[tuple[float, int]]] = defaultdict(list)
        names: dict[str, str] = {}
        versions: dict[str, list[str]] = defaultdict(list)
        for s in rows[run.pk]:
            key = subset_key(kind, s.subset)
            if key is not None:
                parts[key].append((s.score, s.n))
                names[key] = s.subset if key not in names else ""  # several splits: link to the whole run
                versions[key].append(s.version)
        bench.scores[run.model_id] = {k: combine(v) for k, v in parts.items()}
        bench.stored[run.model_id] = names
        bench.versions[run.model_id] = {k: join_versions(v) for k, v in versions.items()}
    return list(benchmarks.values())


def _section(bench: _Benchmark) -> tuple[int, str]:
    family = AUDIO if bench.kind == KMMAU else SPOKEN_QA
    language = "English" if bench.language == Language.ENGLISH else "Korean"
    order = (0 if family == SPOKEN_QA else 2) + (0 if bench.language == Language.ENGLISH else 1)
    return order, f"{language} {family}"


def leaderboard(models: list[EvaluatedModel] | None = None, *, profile: str = DEFAULT_PROFILE) -> Board:
    """Tables 1, 5 and 6, the gaps and the rank agreements for the models with scored runs (or the given ones),
    every number read under one reading profile."""
    benches = _benchmarks(models, check_profile(profile))
    shown = {m for b in benches for m in b.runs}
    columns = [m for m in (models if models is not None else EvaluatedModel.objects.order_by("name", "version")) if m.pk in shown]
    # Demo answers are a run's, not a model's: a demo model given real responses is not labelled as scripted.
    scripted = {m for b in benches for m, run in b.runs.items() if run.answer_source == AnswerSource.DEMO}
    board = Board(profile=profile, models=[ModelColumn(id=m.pk, name=m.name, version=m.version, label=str(m),
                                                       demo=m.pk in scripted) for m in columns])
    ids = [m.pk for m in columns]

    for bench in sorted(benches, key=lambda b: (_section(b)[0], b.kind != VOICEBENCH, b.name)):
        cells = []
        for model_id in ids:
            run = bench.runs.get(model_id)
            cells.append(benchmark_cell(bench.kind, bench.scores[model_id], run.pk, bench.versions[model_id]) if run else Cell())
        mark_row(cells)
        board.table1.append(BenchmarkRow(
            section=_section(bench)[1], kind=bench.kind, language=bench.language, name=bench.name,
            label=BENCHMARK_LABELS.get((bench.kind, bench.language), bench.kind), subsets=list(kind_subsets(bench.kind)),
            cells=_columns(ids, cells)))

    board.table5 = _table5(benches, ids)
    board.gaps = [{"kind": pair.kind, "subset": row.key, "label": row.label, "model": cell.model, "gap": cell.score}
                  for pair in board.table5 for row in pair.rows for cell in row.gap if cell.score is not None]
    board.table6 = _table6(benches, ids)
    board.agreements = _agreements(board)
    board.judges = _judges(board)
    return board


def _columns(ids: list[int], cells: list[Cell]) -> list[Cell]:
    """The row's cells, each naming the model of its column."""
    for model_id, cell in zip(ids, cells, strict=True):
        cell.model = model_id
    return cells


def _judges(board: Board) -> list[dict]:
    """How the judge of each run in Table 1 was asked, for the runs that were judged: {"run", "benchmark",
    "model", "judge_model", "temperature", "top_p", "n", "requests", "refused"} (sampling keys absent for a run
    judged before they were recorded), by run id."""
    names = {m.id: m.label for m in board.models}
    shown = {c.run_id: (r.name, names[c.model]) for r in board.table1 for c in r.cells if c.run_id}
    rows = EvaluationRun.objects.filter(pk__in=shown).exclude(judge_model="").values_list("pk", "judge_model", "judge_sampling")
    return [{"run": pk, "benchmark": shown[pk][0], "model": shown[pk][1], "judge_model": judge,
             **{k: v for k, v in (sampling or {}).items() if k in ("temperature", "top_p", "n", "requests")},
             "refused": list((sampling or {}).get("refused") or [])}
            for pk, judge, sampling in sorted(rows)]


def _subset_cells(bench: _Benchmark | None, key: str, ids: list[int]) -> list[Cell]:
    cells = []
    for model_id in ids:
        run = bench.runs.get(model_id) if bench else None
        scored = bench.scores[model_id].get(key) if run else None
        if scored is None:
            cells.append(Cell(run_id=run.pk if run else None))
            continue
        cells.append(Cell(score=scored[0], n=scored[1], run_id=run.pk, subset=bench.stored[model_id].get(key, ""),
                          version=bench.versions[model_id].get(key, "")))
    mark_row(cells)
    return _columns(ids, cells)


def _table5(benches: list[_Benchmark], ids: list[int]) -> list[SourcePair]:
    """Per spoken-QA source benchmark: each subset with the English run and the Korean run side by side, and
    the gap (Korean minus English) where both are scored."""
    spoken = [b for b in benches if b.kind != KMMAU]
    pairs: dict[tuple[str, str], dict[str, _Benchmark]] = defaultdict(dict)
    for bench in spoken:
        pairs[(bench.kind, bench.source or bench.name)].setdefault(bench.language, bench)
    out = []
    for (kind, source), sides in sorted(pairs.items(), key=lambda p: (p[0][0] != VOICEBENCH, p[0][1])):
        en, ko = sides.get(Language.ENGLISH), sides.get(Language.KOREAN)
        rows = []
        keys = sorted(kind_subsets(kind), key=lambda k: SUBSET_ORDER.index(k) if k in SUBSET_ORDER else 99)
        for key in keys:
            en_cells, ko_cells = _subset_cells(en, key, ids), _subset_cells(ko, key, ids)
            gap = [Cell(score=k.score - e.score, n=min(e.n, k.n)) if e.score is not None and k.score is not None else Cell()
                   for e, k in zip(en_cells, ko_cells, strict=True)]
            rows.append(SubsetRow(key=key, label=subset_label(kind, key), ko_label=subset_label(kind, key, "ko"),
                                  en=en_cells, ko=ko_cells, gap=_columns(ids, gap)))
        out.append(SourcePair(kind=kind, source=source, en=en.name if en else "", ko=ko.name if ko else "",
                              label=BENCHMARK_LABELS[(kind, "en")], ko_label=BENCHMARK_LABELS[(kind, "ko")], rows=rows))
    return out


def _table6(benches: list[_Benchmark], ids: list[int]) -> KmmauTable | None:
    """KMMAU by capability, grouped Acoustic and Contextual as Table 6, with the average (the benchmark mean)."""
    kmmau = [b for b in benches if b.kind == KMMAU]
    if not kmmau:
        return None
    bench = sorted(kmmau, key=lambda b: -len(b.runs))[0]
    rows = [CapabilityRow(key=key, category=SPECS[key].category, label=subset_label(KMMAU, key),
                          cells=_subset_cells(bench, key, ids)) for key in kind_subsets(KMMAU)]
    average = [benchmark_cell(KMMAU, bench.scores[m], bench.runs[m].pk, bench.versions[m]) if m in bench.runs else Cell()
               for m in ids]
    mark_row(average)
    return KmmauTable(name=bench.name, rows=rows, average=_columns(ids, average))


def _agreements(board: Board) -> list[dict]:
    """Each SpokenQA benchmark's ranking against each audio-understanding benchmark's, over the models scored on
    both (seed 000: the two rankings diverge)."""
    names = {m.id: m.label for m in board.models}
    spoken = [r for r in board.table1 if r.kind != KMMAU]
    audio = [r for r in board.table1 if r.kind == KMMAU]
    out = []
    for s in spoken:
        for a in audio:
            sa = {c.model: c.score for c in s.cells if c.score is not None}
            aa = {c.model: c.score for c in a.cells if c.score is not None}
            entry = {"spoken": s.name, "audio": a.name}
            try:
                result = rank_agreement(sa, aa)
            except InvalidInput as exc:
                out.append({**entry, "refused": exc.message})
                continue
            out.append({**entry, "n": result["n"], "spearman": result["spearman"], "kendall": result["kendall"],
                        "ranks": [{"model": m, "name": names[m], "spoken": r[0], "audio": r[1]}
                                  for m, r in sorted(result["ranks"].items(), key=lambda p: p[1][0])]})
    return out


# --- two runs on the same items ----------------------------------------------------------------------------
def _primary_item_scores(runs: list[EvaluationRun], profile: str) -> tuple[dict, dict[int, dict[tuple[str, str], float]]]:
    """(subset -> primary method, run id -> (subset, item id) -> 0-100) under one profile: the current rule
    score of that profile or the judge's, and for (rule + judge) / 2 the mean of the two."""
    primary: dict[str, str] = {}
    for run in runs:
        for subset, method in SubsetScore.objects.filter(run=run, primary=True, current=True, profile=profile).values_list(
                "subset", "method"):
            primary.setdefault(subset, method)
    parts: dict[tuple[int, str, str], dict[str, float]] = defaultdict(dict)
    rows = ItemScore.objects.filter(item__run__in=runs, score__isnull=False, current=True, profile__in=("", profile)
                                    ).values_list("item__run_id", "item__item_id", "item__subset", "method", "score")
    for run_id, item_id, subset, method, score in rows:
        parts[(run_id, subset, item_id)][method] = score
    scores: dict[int, dict[tuple[str, str], float]] = {r.pk: {} for r in runs}
    for (run_id, subset, item_id), by_method in parts.items():
        wanted = primary.get(subset)
        if wanted == ScoreMethod.RULE_AND_JUDGE:
            if ScoreMethod.RULE in by_method and ScoreMethod.JUDGE in by_method:
                scores[run_id][(subset, item_id)] = 50 * (by_method[ScoreMethod.RULE] + by_method[ScoreMethod.JUDGE])
        elif wanted in by_method:
            scores[run_id][(subset, item_id)] = 100 * by_method[wanted]
    return primary, scores


def compare(run_a: EvaluationRun, run_b: EvaluationRun, *, resamples: int = 10000, seed: int = 0,
            profile: str = DEFAULT_PROFILE) -> dict:
    """Two runs (one model twice, or two models) on the same items: per subset and for the benchmark, the mean
    difference of the paired item scores (A minus B, 0-100) with a paired bootstrap 95% interval, an exact
    sign-flip p and a verdict ("clear", "noise", or "too_few" under aggregate.MIN_PAIRED_ITEMS pairs; see
    aggregate.paired_comparison). Each subset is compared by its primary method under one reading profile and
    only over items both runs scored; runs that share no scored item are refused."""
    if run_a.pk == run_b.pk:
        raise InvalidInput(gettext("choose two different runs"), field="b")
    primary, scores = _primary_item_scores([run_a, run_b], check_profile(profile))
    paired = sorted(set(scores[run_a.pk]) & set(scores[run_b.pk]))
    if not paired:
        raise Conflict(gettext(
            "runs %(run_a)s and %(run_b)s have no scored items in common; compare two runs on the same benchmark"
        ) % {"run_a": run_a.pk, "run_b": run_b.pk}, code="no_common_items")
    by_subset: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for key in paired:
        by_subset[key[0]].append(key)
    aggregate = _aggregate()

    def interval(keys):
        a = [scores[run_a.pk][k] for k in keys]
        b = [scores[run_b.pk][k] for k in keys]
        result = aggregate.paired_comparison(a, b, resamples=resamples, seed=seed)
        return {"n": len(keys), "mean_a": result["mean_a"], "mean_b": result["mean_b"], "diff": result["mean_diff"],
                "ci_low": result["ci_low"], "ci_high": result["ci_high"], "p": result["p"],
                "verdict": result["verdict"], "clear": result["verdict"] == aggregate.CLEAR}

    subsets = [{"subset": s, "method": primary[s], **interval(keys)} for s, keys in sorted(by_subset.items())]
    return {"a": run_a.pk, "b": run_b.pk, "resamples": resamples, "seed": seed, "profile": profile,
            "same_benchmark": run_a.benchmark_name == run_b.benchmark_name,
            "only_in_one": len(set(scores[run_a.pk]) ^ set(scores[run_b.pk])),
            "overall": interval(paired), "subsets": subsets}

