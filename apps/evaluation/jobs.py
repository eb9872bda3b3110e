"""Job handlers of the evaluation app (run by apps.jobs in a worker, or in-process in the embedded mode), and the
bodies of the evaluation and the re-scoring (rule-based scores, the LLM judge, subset scores; the collection's
body is apps.evaluation.collection). A job that stops (fails, is cancelled) leaves the run marked as needing
attention with the reason; running it again resumes."""

import json
import logging
from collections import defaultdict

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.agents.services import AgentNeedsAttention, ProviderRejected, agent_config
from apps.core.errors import ApplicationError
from apps.evaluation import collection, judge, services
from apps.evaluation.models import EvalItem, EvaluationRun, ItemScore, RunStatus, ScoreMethod, SubsetScore
from apps.evaluation.scoring import DEFAULT_PROFILE, PROFILES, score_response
from apps.evaluation.status import after_work, needs_attention, work_begins
from apps.jobs.services import JobCancelled, LeaseLost, job_handler, results_in_parallel
from apps.sources import catalogue

log = logging.getLogger(__name__)

JUDGED_METRICS = ("open", "qa")  # the LLM judge scores these (open: only the judge; qa: judge beside the match)


def _marking_the_run(body, job, progress) -> dict:
    try:
        return body(job, progress)
    except LeaseLost:
        raise  # another run holds the job now; the run's state is its to write
    except JobCancelled:
        needs_attention(job.params["run"], f"job {job.pk} was cancelled; resume it to go on")
        raise
    except Exception as exc:
        needs_attention(job.params["run"], f"job {job.pk} failed: {exc}")
        raise


@job_handler(services.COLLECT_JOB)
def collect(job, progress):
    work_begins(job.params["run"])
    return _marking_the_run(collection.run_collection, job, progress)


@job_handler(services.EVALUATE_JOB)
def evaluate(job, progress):
    work_begins(job.params["run"])
    return _marking_the_run(run_evaluation, job, progress)


@job_handler(services.RESCORE_JOB)
def rescore(job, progress):
    work_begins(job.params["run"])
    return _marking_the_run(run_rescoring, job, progress)


def item_input(item: EvalItem) -> dict:
    """What eval-scorers' score_response reads from an item."""
    return {"question": item.question, "answer": item.answer, "aliases": list(item.aliases or []), **(item.extra or {})}


def rule_score(item: EvalItem, profile: str = DEFAULT_PROFILE) -> tuple[float | None, dict, str, str]:
    """(score 0..1 or None, detail, evaluator, version) by the item's rule-based evaluator under a reading
    profile (KMMAU included: apps.evaluation.scoring.kmmau)."""
    scored = score_response(item.metric, item_input(item), item.response or "", language=item.run.language,
                            profile=profile)
    return scored.score, dict(scored.detail), scored.evaluator, str(scored.version)


def _score_by_rule(items: list[EvalItem], profile: str) -> tuple[list[ItemScore], list[str]]:
    """Each item's rule-based score under one profile (unsaved), and the ids of the items whose evaluator failed."""
    rows, failed = [], []
    for item in items:
        try:
            score, detail, evaluator, version = rule_score(item, profile)
        except ApplicationError as exc:  # the scorer says the item cannot be scored (e.g. no instruction left)
            score, detail, evaluator, version = None, {"unscorable": exc.message}, item.metric, "-"
        except Exception as exc:  # one item's checker failing (odd kwargs) must not stop the run: shown on the item
            log.exception("rule-based scoring of %s (%s) failed", item.item_id, profile)
            score, detail, evaluator, version = None, {"error": f"{type(exc).__name__}: {exc}"}, item.metric, "failed"
            failed.append(item.item_id)
        rows.append(ItemScore(item=item, method=ScoreMethod.RULE, profile=profile, current=True, score=score,
                              detail=json.loads(json.dumps(detail, default=str)), evaluator=evaluator, version=version))
    return rows, failed


def store_rule_scores(run: EvaluationRun, profile: str, rows: list[ItemScore]) -> None:
    """Make `rows` the current rule-based scores of their items under `profile`. A current score of the same
    version is replaced; one of another version is kept beside the new one, no longer current (so a new reader
    version never silently overwrites what an earlier one said)."""
    by_version: dict[str, list[int]] = defaultdict(list)
    for row in rows:
        by_version[row.version].append(row.item_id)
    mine = ItemScore.objects.filter(item__run=run, method=ScoreMethod.RULE, profile=profile)
    with transaction.atomic():
        # Lock the run's row: two evaluations storing at once must not both think a score is theirs to replace.
        EvaluationRun.objects.select_for_update().filter(pk=run.pk).first()
        for version, item_ids in by_version.items():
            mine.filter(item_id__in=item_ids, version=version).delete()
            mine.filter(item_id__in=item_ids, current=True).update(current=False)
        ItemScore.objects.bulk_create(rows, batch_size=2000)


def _rescore_rules(run: EvaluationRun, items: list[EvalItem], profiles: tuple[str, ...], progress, done: int) -> tuple[int, list[str]]:
    failed: list[str] = []
    for profile in profiles:
        progress.set_done(done, message=f"Scoring {len(items)} responses by rule ({profile} reading)")
        rows, failed_here = _score_by_rule(items, profile)
        store_rule_scores(run, profile, rows)
        failed += [f for f in failed_here if f not in failed]
        done += len(items)
    return done, failed


def run_evaluation(job, progress) -> dict:
    """The evaluation job's body. Rules cost nothing and go first, every time and under every reading profile
    (so a new version of an evaluator applies to a run evaluated again, beside the old scores); then the judge,
    in parallel within settings.EVALUATION_JUDGE_WORKERS (the provider's slots still cap requests in flight),
    only for the items without a judge score: a resumed or repeated evaluation asks nothing twice (the judge's
    answers are cached by input too)."""
    run = EvaluationRun.objects.select_related("model").get(pk=job.params["run"])
    items = list(EvalItem.objects.filter(run=run).answered().select_related("run"))
    done_judge = set(ItemScore.objects.filter(item__run=run, method=ScoreMethod.JUDGE, current=True)
                     .values_list("item_id", flat=True))
    to_judge = [i for i in items if i.metric in JUDGED_METRICS and i.pk not in done_judge]
    rules = [i for i in items if i.metric != "open"]
    progress.set_total(len(PROFILES) * len(rules) + len(to_judge) + 1, message=f"Scoring {len(rules)} responses by rule")
    done, rule_failed = _rescore_rules(run, rules, PROFILES, progress, 0)
    progress.set_done(done, message=f"Judging {len(to_judge)} responses ({', '.join(JUDGED_METRICS)})")
    if to_judge:  # a run scored by rule alone (KMMAU, multiple choice) names no judge
        provider, model = agent_config("judge")
        EvaluationRun.objects.filter(pk=run.pk).update(judge_model=f"{provider}:{model}")
    failed = 0
    for _item, outcome in results_in_parallel(to_judge, lambda i: _judge_safely(i, job), workers=settings.EVALUATION_JUDGE_WORKERS,
                                             name="judge"):
        if isinstance(outcome, AgentNeedsAttention):
            failed += 1
        done += 1
        progress.set_done(done, message=f"Judged {done - len(PROFILES) * len(rules)} of {len(to_judge)}"
                          + (f"; {failed} left unscored (needs attention)" if failed else ""))
    subsets = compute_subset_scores(run)
    progress.set_done(done + 1, message=f"Scored {len({s.subset for s in subsets})} subsets")
    reasons = []
    if rule_failed:
        reasons.append(_rule_failure_reason(rule_failed))
    if failed:
        reasons.append(f"{failed} judge scores could not be read; evaluate again to retry them")
    after_work(run.pk, reasons, done=RunStatus.EVALUATED, evaluated_at=timezone.now())
    return {"run": run.pk, "rule_scored": len(rules) - len(rule_failed), "rule_failed": rule_failed,
            "profiles": list(PROFILES), "judged": len(to_judge) - failed, "judge_failed": failed,
            "subsets": {f"{s.subset}:{s.method}": round(s.score, 2) for s in subsets if s.profile == DEFAULT_PROFILE}}


def _rule_failure_reason(rule_failed: list[str]) -> str:
    return (f"the rule-based evaluator failed on {len(rule_failed)} items ({', '.join(rule_failed[:5])}"
            f"{', ...' if len(rule_failed) > 5 else ''}); their error is on each item's page")


def run_rescoring(job, progress) -> dict:
    """The re-scoring job's body: the rules of one profile, then that profile's subset scores."""
    run = EvaluationRun.objects.get(pk=job.params["run"])
    profile = job.params["profile"]
    rules = list(EvalItem.objects.filter(run=run).answered().exclude(metric="open").select_related("run"))
    progress.set_total(len(rules) + 1, message=f"Scoring {len(rules)} responses by rule ({profile} reading)")
    done, rule_failed = _rescore_rules(run, rules, (profile,), progress, 0)
    subsets = compute_subset_scores(run, profiles=(profile,))
    progress.set_done(done + 1, message=f"Scored {len({s.subset for s in subsets})} subsets ({profile} reading)")
    after_work(run.pk, [_rule_failure_reason(rule_failed)] if rule_failed else [], done=RunStatus.EVALUATED,
               evaluated_at=timezone.now())
    return {"run": run.pk, "profile": profile, "rule_scored": len(rules) - len(rule_failed), "rule_failed": rule_failed,
            "versions": sorted({s.version for s in subsets if s.method == ScoreMethod.RULE})}


def _judge_safely(item: EvalItem, job):
    """One item's judge score, stored. When the judge could not give an answer (invalid twice, or the
    provider kept failing) the item is left without a judge score, so evaluating again retries it; the error
    is returned and counted, and the other items go on. Budget, missing provider and a rejected request stop
    the job."""
    try:
        judge.judge_item(item, job=job)
    except ProviderRejected:
        raise
    except AgentNeedsAttention as exc:
        return exc
    return None


def _subset_value(metric: str, method: str, scored: list[ItemScore]) -> tuple[float, dict]:
    """(0-100 score, detail) of one subset by one method, by apps.evaluation.aggregate.subset_score: the
    open-ended judge's every 1-5 rating (VoiceBench averages every sample of every item, x 20); IFEval's
    instruction- and prompt-level results read from the items' details; the items' 0/1 scores otherwise."""
    from apps.evaluation.aggregate import subset_score  # on first use: it loads scipy (seconds)

    if metric == "open" and method == ScoreMethod.JUDGE:
        ratings = [r for s in scored for r in s.detail.get("scores", [])]
        return subset_score("open", ratings), {"ratings": len(ratings)}
    if metric == "ifeval":
        # On first use: IFEval's checkers load datasets and nltk (seconds).
        from apps.evaluation.scoring import ifeval

        instruction, prompt = ifeval.levels([s.detail for s in scored])
        return (subset_score("ifeval", instruction, prompt_level=prompt),
                {"prompt_level": round(100 * sum(prompt) / len(prompt), 2),
                 "instruction_level": round(100 * sum(instruction) / len(instruction), 2)})
    return subset_score(metric, [s.score for s in scored]), {}


def is_sd_qa(subset: str) -> bool:
    """SD-QA, or one of its regional splits ("sd-qa-usa")."""
    found = catalogue.match(subset)
    return found is not None and found[0].name == "sd-qa"


def _versions(scored: list[ItemScore]) -> str:
    return " + ".join(sorted({s.version for s in scored}))[:200]


def _rule_and_judge(rule: list[ItemScore], judge: list[ItemScore]) -> tuple[float, int, dict] | None:
    """SD-QA as VoiceBench reports it, (rule + judge) / 2, over the items both scored; None if none did."""
    judged = {s.item_id: s.score for s in judge}
    pairs = [(s.score, judged[s.item_id]) for s in rule if s.item_id in judged]
    if not pairs:
        return None
    rule_mean = 100 * sum(r for r, _ in pairs) / len(pairs)
    judge_mean = 100 * sum(j for _, j in pairs) / len(pairs)
    return (rule_mean + judge_mean) / 2, len(pairs), {
        "formula": "(rule + judge) / 2, as VoiceBench reports SD-QA", "rule": round(rule_mean, 2),
        "judge": round(judge_mean, 2), "rule_reader": _versions(rule), "rule_evaluator": rule[0].evaluator}


def compute_subset_scores(run: EvaluationRun, *, profiles: tuple[str, ...] = PROFILES) -> list[SubsetScore]:
    """Each subset's score per method (0-100) under each reading profile, from the current item scores: the
    rule's of that profile, the judge's (shared by both), and for SD-QA (rule + judge) / 2. They become the
    current subset scores; earlier ones of another version stay, no longer current. Primary (what the
    leaderboard reports): the judge for open-ended and short-answer subsets, (rule + judge) / 2 for SD-QA, the
    rule otherwise."""
    counts: dict[str, int] = defaultdict(int)
    for subset in EvalItem.objects.filter(run=run).values_list("subset", flat=True):
        counts[subset] += 1
    current = list(ItemScore.objects.filter(item__run=run, current=True, profile__in=("", *profiles))
                   .select_related("item"))
    rows = []
    for profile in profiles:
        cells: dict[tuple[str, str, str], list[ItemScore]] = defaultdict(list)
        for score in current:
            if score.method == ScoreMethod.JUDGE or score.profile == profile:
                cells[(score.item.subset, score.item.metric, score.method)].append(score)
        for (subset, metric, method), scores in sorted(cells.items()):
            scored = [s for s in scores if s.score is not None]
            if not scored:
                continue
            value, detail = _subset_value(metric, method, scored)
            rows.append(SubsetScore(run=run, subset=subset, metric=metric, method=method, profile=profile,
                                    version=_versions(scored), score=value, n=len(scored),
                                    unscored=counts[subset] - len(scored), detail=detail))
            if metric == "qa" and method == ScoreMethod.RULE and is_sd_qa(subset):
                judge = [s for s in cells.get((subset, metric, ScoreMethod.JUDGE), []) if s.score is not None]
                both = _rule_and_judge(scored, judge)
                if both:
                    rows.append(SubsetScore(
                        run=run, subset=subset, metric=metric, method=ScoreMethod.RULE_AND_JUDGE, profile=profile,
                        version=f"{_versions(scored)} + {_versions(judge)}"[:200], score=both[0], n=both[1],
                        unscored=counts[subset] - both[1], detail=both[2]))
    _mark_primary(rows)
    with transaction.atomic():
        EvaluationRun.objects.select_for_update().filter(pk=run.pk).first()
        mine = SubsetScore.objects.filter(run=run, profile__in=profiles)
        fresh = {(r.subset, r.method, r.profile, r.version) for r in rows}
        for old in mine:
            if (old.subset, old.method, old.profile, old.version) in fresh:
                old.delete()  # the same version computed again: replaced
        mine.filter(current=True).update(current=False)  # another version, or a subset no longer scored: kept
        SubsetScore.objects.bulk_create(rows)
    return rows


def _mark_primary(rows: list[SubsetScore]) -> None:
    methods = {(r.profile, r.subset, r.method) for r in rows}
    for row in rows:
        if row.metric == "qa" and is_sd_qa(row.subset) and (row.profile, row.subset, ScoreMethod.RULE_AND_JUDGE) in methods:
            wanted = ScoreMethod.RULE_AND_JUDGE
        else:
            wanted = ScoreMethod.JUDGE if row.metric in JUDGED_METRICS else ScoreMethod.RULE
        row.primary = row.method == wanted
