"""Who may do what in consultations. Experts answer questions and approve the rules drafted from their own
answers; admins run rounds; a round's lead expert may settle its disagreements. Admins pass every check."""

from apps.accounts.permissions import role_rule, rule
from apps.accounts.roles import Role

role_rule("consultations.manage")  # rounds, loading rulebooks: admins only
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
