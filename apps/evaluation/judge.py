"""The LLM judge of apps.evaluation, as VoiceBench runs it (api_judge.py, src/evaluator/open.py and qa.py),
every call through apps.agents.call_agent under the `judge` role (its own model setting, the job's budget cap,
cost, cache and retries).

- Open-ended items (AlpacaEval, CommonEval, WildVoice and their Korean counterparts): the judge rates the
  response 1-5 against the transcription of the spoken instruction, three samples; the item's score is the
  mean of the three, and a subset's score is the mean over items x 20 (stored here as mean / 5 in 0..1, so
  x 100 gives the paper's 100-point scale).
- Short-answer items (SD-QA, TriviaQA, WebQuestions, Llama Questions): the judge says Yes or No to the
  response given the question and the reference, three samples; the item is correct when most say yes
  (VoiceBench's majority_vote). The rule-based match is stored beside it as its own score.

The English side uses VoiceBench's prompts word for word (judge_open, judge_qa); the Korean side their
Korean translations (judge_open_ko, judge_qa_ko); each is a versioned prompt file in apps/agents/prompts.
VoiceBench asks for `n=3` completions in one request; the agent layer makes one call per answer, and its
cache is keyed by the hash of the whole input, so three identical inputs would give one answer three times:
each sample passes its index as `variant`, which joins the input hash (not the prompt), so the three are
separate calls, each cached on its own and replayed the same on a re-run. VoiceBench samples at temperature
0.5; the agent layer sends no sampling settings (newer OpenAI models refuse a temperature), so the samples
vary at the provider's default."""

from typing import Literal

from django.conf import settings
from django.db import transaction
from pydantic import BaseModel, Field

from apps.agents.services import call_agent
from apps.evaluation.models import EvalItem, ItemScore, JudgeCall, Language, ScoreMethod

PROMPTS = {
    ("open", Language.ENGLISH): "judge_open", ("open", Language.KOREAN): "judge_open_ko",
    ("qa", Language.ENGLISH): "judge_qa", ("qa", Language.KOREAN): "judge_qa_ko",
}


class JudgeScore(BaseModel):
    score: int = Field(ge=1, le=5, description="1 to 5")


class JudgeVerdict(BaseModel):
    answer: Literal["Yes", "No", "yes", "no", "YES", "NO"]


def reference_of(item: EvalItem) -> str:
    """The reference the qa judge reads: the answer, and the aliases the benchmark also accepts."""
    aliases = [a for a in (item.aliases or []) if a and a != item.answer]
    return " / ".join([item.answer, *aliases]) if aliases else item.answer


def judge_item(item: EvalItem, *, job=None) -> ItemScore:
    """Ask the judge `settings.EVALUATION_JUDGE_SAMPLES` times about one item and store its judge score with
    the calls behind it. Raises the agent layer's errors (AgentNeedsAttention, BudgetExceeded, ...)."""
    if item.metric not in ("open", "qa"):
        raise ValueError(f"the judge does not score {item.metric} items")
    prompt = PROMPTS[(item.metric, item.run.language)]
    variables = {"prompt": item.question, "response": item.response or ""}
    schema = JudgeScore
    if item.metric == "qa":
        variables["reference"] = reference_of(item)
        schema = JudgeVerdict
    results = [
        call_agent(role="judge", prompt=prompt, variables=variables, schema=schema, job=job, variant=sample)
        for sample in range(settings.EVALUATION_JUDGE_SAMPLES)
    ]
    if item.metric == "open":
        values = [r.data.score for r in results]
        mean = sum(values) / len(values)
        score, detail = mean / 5, {"scores": values, "mean": round(mean, 4), "scale": "1-5; subset = mean x 20"}
        read = [str(v) for v in values]
    else:
        votes = [r.data.answer.lower() for r in results]
        yes = votes.count("yes")
        score, detail = float(yes > len(votes) / 2), {"votes": votes, "majority": "yes" if yes > len(votes) / 2 else "no",
                                                      "reference": variables["reference"]}
        read = votes
    first = results[0].call
    with transaction.atomic():
        row, _ = ItemScore.objects.update_or_create(item=item, method=ScoreMethod.JUDGE, defaults={
            "score": score, "detail": detail, "evaluator": f"judge:{first.prompt_name}",
            "version": f"v{first.prompt_version} {first.provider}:{first.model}"})
        row.judge_calls.all().delete()
        JudgeCall.objects.bulk_create([
            JudgeCall(score=row, sample=n, agent_call=r.call, prompt_name=r.call.prompt_name,
                      prompt_version=r.call.prompt_version, raw_answer=r.call.response_text, value=value)
            for n, (r, value) in enumerate(zip(results, read, strict=True))
        ])
    return row
