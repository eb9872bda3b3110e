"""The two places the consultation loop reaches the app above it, as hooks that app fills in.

Consultations is the lower app (rulebooks, rounds, questions): apps.transfer imports it and pushes work into
it (`services.raise_ground_truth_question` when it sends a correction to an expert), and consultations imports
nothing of transfer. Where the loop must reach back up, it goes through these, which apps.transfer connects in
its AppConfig.ready:

- `ground_truth_decided`: the experts (or the lead settling a disagreement) decided a ground-truth question.
  Sent inside the decision's transaction, so what the receiver writes (the correction's decision) commits or
  rolls back with it, and a refusal it raises (Conflict) refuses the decision.
- `answer_of(sample)`: the answer prompts and pages show for a source sample, after ground-truth correction
  when the app above provides one (`provide_answers`), else the imported answer.
"""

from collections.abc import Callable

from django.core.exceptions import ImproperlyConfigured
from django.dispatch import Signal

# sender=DecisionQuestion, question=<the decided question>, correction=<its transfer.Correction>,
# acting_user=<who decided>, accept=<True for the option that applies the correction>, note=<str>
ground_truth_decided = Signal()

_answer_source: Callable | None = None


def provide_answers(source: Callable) -> None:
    """`source(sample)` returns an object with `answer` and `aliases` (transfer's EffectiveAnswer)."""
    global _answer_source
    _answer_source = source


def answer_of(sample) -> tuple[str, list[str]]:
    if _answer_source is None:
        return sample.answer, list(sample.aliases or [])
    effective = _answer_source(sample)
    return effective.answer, list(effective.aliases)


def send_ground_truth_decided(*, question, correction, acting_user, accept: bool, note: str) -> None:
    responses = ground_truth_decided.send(sender=type(question), question=question, correction=correction,
                                          acting_user=acting_user, accept=accept, note=note)
    if not responses:
        # A decided question that resolves nothing would leave its correction waiting for ever.
        raise ImproperlyConfigured("no app resolves ground-truth corrections (apps.transfer connects ground_truth_decided)")
