"""Agent-written questions (fact extraction, topic summary): the question-writer role writes a question,
four options, the correct one and an evidence span; the span must occur in the clip's transcript. A
question that fails the checks is asked for once more with the error; if it fails again (or the agent
cannot answer), the question is kept in "needs attention" with the reason. Good questions go to human
review (services.send_to_review)."""

from django.db import transaction
from django.utils.translation import gettext
from pydantic import BaseModel, Field

from apps.agents.services import AgentNeedsAttention, call_agent
from apps.authoring.capabilities import AGENT_CAPABILITIES, Capability, Method, capability_label
from apps.authoring.models import Clip, Question, QuestionSet, QuestionStatus
from apps.authoring.services import send_to_review
from apps.authoring.validation import clean_question, normalise
from apps.core.errors import ApplicationError, InvalidInput

PROMPT = "kmmau_question"
HELP = {
    Capability.FACT_EXTRACTION: "ask about one specific fact stated in the clip: who, what, where, when, how many",
    Capability.TOPIC_SUMMARY: "ask what the clip is mainly about; the options are short topic phrases",
}


class WrittenQuestion(BaseModel):
    question: str = Field(min_length=1)
    options: list[str] = Field(min_length=4, max_length=4)
    correct_index: int = Field(ge=0, le=3)
    evidence: str = Field(min_length=1)


def check_written(written: WrittenQuestion, capability: str, transcript: str) -> tuple[str, list[str], int]:
    """The cleaned question, or InvalidInput saying what is wrong (sent back to the agent on the retry)."""
    text, options, index = clean_question(capability, written.question, written.options, written.correct_index)
    if normalise(written.evidence) not in normalise(transcript):
        raise InvalidInput(gettext(
            "the evidence %(evidence)r does not occur in the transcript; copy it exactly"
        ) % {"evidence": written.evidence},
                           field="evidence")
    return text, options, index


def write_question(*, question_set: QuestionSet, clip: Clip, capability: str, job=None, fresh: bool = False) -> Question:
    """One agent-written question for the clip (idempotent: an existing one is returned). `fresh` asks the
    agent anew instead of reusing a cached answer (a retry of one that needed attention)."""
    if capability not in AGENT_CAPABILITIES:
        raise InvalidInput(gettext("%(capability)r is not written by the agent") % {"capability": capability}, field="capability")
    existing = Question.objects.filter(question_set=question_set, clip=clip, dedup_key=capability).first()
    if existing is not None:
        return existing
    transcript = clip.clean_transcript
    calls, error = [], ""
    for _attempt in range(2):
        variables = {"capability": Capability(capability).label, "capability_help": HELP[capability],
                     "transcript": transcript, "previous_error": error}
        try:
            result = call_agent(role="question_writer", prompt=PROMPT, variables=variables, schema=WrittenQuestion,
                                job=job, use_cache=not fresh)
        except AgentNeedsAttention as exc:
            if exc.call is not None:
                calls.append(exc.call)
            return _save(question_set, clip, capability, calls, attention=f"the question writer failed: {exc.reason}")
        calls.append(result.call)
        try:
            text, options, index = check_written(result.data, capability, transcript)
        except ApplicationError as exc:
            error = exc.message
            continue
        return _save(question_set, clip, capability, calls, text=text, options=options, index=index,
                     evidence=result.data.evidence)
    return _save(question_set, clip, capability, calls, attention=f"refused twice: {error}")


def _save(question_set, clip, capability, calls, *, text="", options=None, index=None, evidence="", attention=""):
    provenance = {"method": Method.AGENT, "role": "question_writer", "prompt": PROMPT,
                  "agent_calls": [c.pk for c in calls],
                  "prompt_version": calls[-1].prompt_version if calls else None,
                  "model": f"{calls[-1].provider}:{calls[-1].model}" if calls else None}
    with transaction.atomic():
        question = Question.objects.create(
            question_set=question_set, capability=capability, method=Method.AGENT, clip=clip, text=text,
            options=options or [], correct_index=index, evidence=evidence, provenance=provenance, dedup_key=capability,
            status=QuestionStatus.NEEDS_ATTENTION, attention=attention,
        )
        question.agent_calls.add(*calls)
        if not attention:
            send_to_review(question)
    return question


def write_questions(*, question_set: QuestionSet, corpus, capability: str, limit: int | None = None, job=None,
                    progress=None, retry: bool = False) -> dict:
    """Agent questions for the corpus's clips (those with a transcript), up to `limit` new ones. With `retry`,
    the agent's questions of this capability that need attention are written again (the failed ones are
    removed; their agent calls stay in the call log)."""
    question_set.corpora.add(corpus)
    if retry:
        Question.objects.filter(question_set=question_set, clip__corpus=corpus, dedup_key=capability,
                                method=Method.AGENT, status=QuestionStatus.NEEDS_ATTENTION).delete()
    clips = corpus.clips.exclude(clean_transcript="").exclude(
        questions__question_set=question_set, questions__dedup_key=capability).order_by("id")
    if limit is not None:
        clips = clips[:limit]
    clips = list(clips)
    if progress:
        progress.set_total(len(clips), message=f"Writing {len(clips)} {capability_label(capability)} questions")
    counts = {"in_review": 0, "needs_attention": 0}
    for clip in clips:
        question = write_question(question_set=question_set, clip=clip, capability=capability, job=job, fresh=retry)
        counts["in_review" if question.status == QuestionStatus.IN_REVIEW else "needs_attention"] += 1
        if progress:
            progress.advance()
    return counts
