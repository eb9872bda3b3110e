"""Reads for the consultation loop: which samples a round covers, each sample's current analysis, an
expert's inbox, and the statistics per round and per version."""

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.db import connections
from django.db.models import Count, Exists, OuterRef, Q

from apps.consultations import hooks
from apps.consultations.models import (
    FLAGGED_ACTIONS,
    HYPERTRANSLATION_ACTIONS,
    NEEDS_ATTENTION,
    UNDECIDED,
    AnalysisResult,
    DecisionQuestion,
    DraftStatus,
    QuestionStatus,
    Round,
    RoundStatus,
    RulebookKind,
    RulebookVersion,
    RuleDraft,
)
from apps.sources.models import SourceSample


def sample_fields(sample) -> dict:
    """The fields of a source sample that prompts and pages show, in one place."""
    answer, aliases = hooks.answer_of(sample)  # after ground-truth correction, when transfer provides it
    return {
        "id": sample.pk,
        "subset": str(getattr(sample, "subset", "")),
        "task_type": str(getattr(sample, "task_type", "")),
        "source_id": str(getattr(sample, "source_id", "")),
        "transcription": getattr(sample, "transcription", ""),
        "answer": answer if isinstance(answer, str) else str(answer),
        "aliases": list(aliases) if isinstance(aliases, list | tuple) else [],
    }


def actions_for(kind: str, version: RulebookVersion | None = None) -> list[tuple[str, str]]:
    """The actions an analysis may assign: the paper's five for hypertranslation; for normalization the
    categories of the version's rules (plus "no change" for text that is already speakable)."""
    if kind == RulebookKind.HYPERTRANSLATION:
        return list(HYPERTRANSLATION_ACTIONS)
    categories = []
    if version is not None:
        for category in version.rules.values_list("category", flat=True):
            if category not in categories:
                categories.append(category)
    return [(c, c.replace("_", " ").capitalize()) for c in categories] + [("no_change", "No change (already speakable)")]


def scope_q(scope: dict, *, through: str = "") -> Q:
    """A round's scope as a filter on samples (`through`: the path to the sample, e.g. "sample__"); an
    empty subset or task-type list leaves that side open."""
    q = Q()
    if subsets := scope.get("subsets") or []:
        q &= Q(**{f"{through}subset__in": subsets})
    if task_types := scope.get("task_types") or []:
        q &= Q(**{f"{through}task_type__in": task_types})
    return q


def scope_samples(scope: dict):
    return SourceSample.objects.filter(scope_q(scope)).order_by("pk")


def latest_results(sample_ids, *, rulebook) -> dict[int, AnalysisResult]:
    """Each sample's newest analysis under this rulebook (highest version wins)."""
    latest: dict[int, AnalysisResult] = {}
    results = (
        AnalysisResult.objects.filter(version__rulebook=rulebook, sample_id__in=list(sample_ids))
        .select_related("version")
        .order_by("sample_id", "version__number")
    )
    for result in results:
        latest[result.sample_id] = result
    return latest


def undecided_results(round: Round) -> list[AnalysisResult]:
    """Samples in the round's scope whose current analysis is undecided and that no question of this round
    already covers: the material for new questions."""
    ids = scope_samples(round.scope).values_list("pk", flat=True)
    covered = set(
        DecisionQuestion.affected_samples.through.objects.filter(decisionquestion__round=round).values_list(
            "sourcesample_id", flat=True
        )
    )
    return [
        r for sid, r in latest_results(ids, rulebook=round.rulebook).items() if r.action == UNDECIDED and sid not in covered
    ]


def open_questions_for(user):
    """The questions waiting for this expert: open, and not yet answered (submitted) by them."""
    answered = Q(answers__expert=user, answers__submitted_at__isnull=False)
    return (
        DecisionQuestion.objects.filter(status=QuestionStatus.OPEN)
        .exclude(pk__in=DecisionQuestion.objects.filter(answered).values("pk"))
        .select_related("round__rulebook")
        .order_by("created_at", "pk")
    )


def disputed_questions_for(user):
    if user.is_sori_admin:
        return DecisionQuestion.objects.filter(status=QuestionStatus.DISPUTED)
    return DecisionQuestion.objects.filter(status=QuestionStatus.DISPUTED, round__lead_expert=user)


def drafts_for(user):
    qs = RuleDraft.objects.filter(status=DraftStatus.DRAFTED).select_related("question__round__rulebook")
    if user.is_sori_admin:
        return qs
    return qs.filter(question__answers__expert=user, question__answers__submitted_at__isnull=False).distinct()


@dataclass
class Stats:
    questions_raised: int = 0
    questions_answered: int = 0
    samples_analysed: int = 0
    samples_affected: int = 0
    per_action: dict[str, int] = field(default_factory=dict)
    flagged_by_subset: dict[str, dict[str, int]] = field(default_factory=dict)
    citations: dict[str, int] = field(default_factory=dict)  # rule id -> analyses citing it

    @property
    def flagged(self) -> int:
        return sum(self.per_action.get(a, 0) for a in FLAGGED_ACTIONS)

    @property
    def undecided(self) -> int:
        return self.per_action.get(UNDECIDED, 0)

    @property
    def needs_attention(self) -> int:
        return self.per_action.get(NEEDS_ATTENTION, 0)


def _count(analyses, stats: Stats) -> Stats:
    """Counts of these analyses, grouped in the database by (action, subset, cited rule ids): a few dozen
    rows however many analyses there are (rules are cited in few distinct combinations), so no per-analysis
    Python work and no model instances."""
    per_action: Counter = Counter()
    by_subset: dict[str, Counter] = defaultdict(Counter)
    citations: Counter = Counter()
    groups = (
        analyses.order_by().values_list("action", "sample__subset", "cited_rule_ids")
        .annotate(n=Count("pk")).values_list("action", "sample__subset", "cited_rule_ids", "n")
    )
    for action, subset, cited, n in groups:
        per_action[action] += n
        for rule_id in cited or []:
            citations[rule_id] += n
        if action in FLAGGED_ACTIONS:
            by_subset[str(subset or "")][action] += n
    stats.samples_analysed = sum(per_action.values())
    stats.per_action = dict(sorted(per_action.items()))
    stats.flagged_by_subset = {s: dict(c) for s, c in sorted(by_subset.items())}
    stats.citations = dict(citations)
    return stats


def _question_counts(round: Round, stats: Stats) -> Stats:
    """Questions raised and decided, and the distinct samples they affect, in one read (distinct counts,
    since the join to the affected samples repeats each question once per sample)."""
    counts = round.questions.aggregate(
        raised=Count("pk", distinct=True),
        answered=Count("pk", filter=Q(status=QuestionStatus.DECIDED), distinct=True),
        affected=Count("affected_samples", distinct=True),
    )
    stats.questions_raised, stats.questions_answered = counts["raised"], counts["answered"]
    stats.samples_affected = counts["affected"]
    return stats


def current_analyses(round: Round):
    """The analyses a round shows: for each sample in its scope under its rulebook, the newest (highest
    version). PostgreSQL picks them with DISTINCT ON in one sort; elsewhere (SQLite, the demo) an anti-join
    drops each analysis that a newer version has superseded."""
    analyses = AnalysisResult.objects.filter(scope_q(round.scope, through="sample__"), version__rulebook=round.rulebook)
    if connections[analyses.db].features.can_distinct_on_fields:
        newest = analyses.order_by("sample_id", "-version__number").distinct("sample_id").values("pk")
        return AnalysisResult.objects.filter(pk__in=newest)
    newer = AnalysisResult.objects.filter(
        version__rulebook=round.rulebook, sample_id=OuterRef("sample_id"), version__number__gt=OuterRef("version__number"),
    )
    return analyses.exclude(Exists(newer))


def round_stats(round: Round) -> Stats:
    """A round as it stands: its questions, and each sample in scope at its current (newest) analysis,
    counted in the database (two small queries)."""
    return _count(current_analyses(round), _question_counts(round, Stats()))


def version_stats(version: RulebookVersion) -> Stats:
    """The analyses made under one version (each stays as it was, whatever later versions say)."""
    stats = Stats()
    source_round = getattr(version, "from_round", None)
    if source_round is not None:
        _question_counts(source_round, stats)
    return _count(version.analyses.all(), stats)


def round_history(round: Round):
    return round.events.select_related("actor")


def rounds_ready_to_codify():
    """Rounds still taking answers whose questions are all decided or withdrawn (at least one decided): the
    admin can close them and codify the answers into rules (services.close_round would accept)."""
    questions = DecisionQuestion.objects.filter(round=OuterRef("pk"))
    return (Round.objects.filter(status=RoundStatus.ANSWERING)
            .filter(Exists(questions.filter(status=QuestionStatus.DECIDED)))
            .exclude(Exists(questions.filter(status__in=[QuestionStatus.OPEN, QuestionStatus.DISPUTED])))
            .select_related("rulebook").order_by("created_at", "pk"))
