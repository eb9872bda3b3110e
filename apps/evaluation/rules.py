"""Who may do what with evaluations: admins manage models, runs, imports and scoring (they pass every rule
before it is asked); any signed-in user may read scores, responses and judge calls."""

from apps.accounts.permissions import rule


@rule("evaluation.manage")
def _manage(user, obj=None):
    return False


@rule("evaluation.view")
def _view(user, obj=None):
    return True
