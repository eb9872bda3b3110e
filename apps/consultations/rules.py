"""Who may do what in consultations. Experts answer questions and approve the rules drafted from their own
answers; admins run rounds; a round's lead expert may settle its disagreements. Admins pass every check."""

from apps.accounts.permissions import role_rule, rule
from apps.accounts.roles import Role
from apps.audio.rules import grants_audio_access

role_rule("consultations.read_rulebooks", Role.EXPERT)
role_rule("consultations.answer", Role.EXPERT)


@rule("consultations.view_question")
def _view_question(user, question):
    return user.has_role(Role.EXPERT)


@rule("consultations.settle")
def _settle(user, question):
    return (
        question is not None and question.round is not None and question.round.lead_expert_id == user.pk
        and user.has_role(Role.EXPERT)
    )


@rule("consultations.approve_draft")
def _approve_draft(user, draft):
    return draft is not None and user.has_role(Role.EXPERT) and draft.question.answers.filter(
        expert=user, submitted_at__isnull=False
    ).exists()


@grants_audio_access
def _expert_hears_question_samples(user, asset) -> bool:
    """An expert may hear the audio of samples shown in an open question."""
    if not user.has_role(Role.EXPERT):
        return False
    from apps.consultations.models import DecisionQuestion

    questions = DecisionQuestion.objects.exclude(status="withdrawn")
    for field in ("audio", "audio_asset"):
        try:
            if questions.filter(**{f"affected_samples__{field}": asset}).exists():
                return True
        except Exception:  # the sample model has no such field
            continue
    return False
