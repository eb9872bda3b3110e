"""What the ground-truth agents must answer (validated by apps.agents.call_agent)."""

from typing import Literal

from pydantic import BaseModel, Field, model_validator


class ReviewerAnswer(BaseModel):
    verdict: Literal["correct", "error"] = Field(
        description="correct: the answer follows from the transcription; error: it does not, propose a correction"
    )
    rationale: str = Field(min_length=1)
    correction_kind: Literal["new_answer", "add_aliases", "unanswerable"] | None = None
    new_answer: str | None = Field(None, description="the corrected answer (correction_kind new_answer)")
    added_aliases: list[str] = Field(default_factory=list, description="answers to accept too (add_aliases)")

    @model_validator(mode="after")
    def _proposal_is_complete(self):
        if self.verdict == "correct":
            return self
        if self.correction_kind is None:
            raise ValueError("verdict 'error' needs a correction_kind")
        if self.correction_kind == "new_answer" and not (self.new_answer or "").strip():
            raise ValueError("correction_kind 'new_answer' needs a non-empty new_answer")
        if self.correction_kind == "add_aliases" and not [a for a in self.added_aliases if a.strip()]:
            raise ValueError("correction_kind 'add_aliases' needs at least one added alias")
        return self


class MetaReviewerAnswer(BaseModel):
    verdict: Literal["confirm", "reject", "unsure"] = Field(
        description="confirm: the proposed change is right and needed; reject: it is not; unsure: cannot tell"
    )
    rationale: str = Field(min_length=1)
