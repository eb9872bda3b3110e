"""Who may do what with evaluations (asked through apps.accounts.permissions; admins pass every rule).

- `evaluation.view`: scores and what they are scores of. The runs (model, benchmark, status, counts, decoding,
  judge model), each run's subset scores, the leaderboard and its exports, and two runs compared. Every
  signed-in user, whatever their role: scores are what Sori publishes.
- `evaluation.inspect`: what is behind a score. A run's items (transcripts, reference answers), the model's
  responses, each score's detail and judge calls with their raw answers, where the answers come from (the
  model's endpoint and served model), why a run needs attention, and its jobs. Admins only.
- `evaluation.manage`: models, runs, imports, collection and scoring. Admins only.

Experts are not given `evaluation.inspect`. An expert rules on ground truth and translations through their
own pages (consultations, transfer review), and none of that work needs a model's answers or a judge's. The
items are a benchmark's answer key, often of a release not published yet, and answer keys stay with those who
run the evaluations. Responses and failure reasons also carry what an endpoint sent back, and endpoints are
operators' addresses. If experts ever review the items where the rule and the judge disagree, that is a new
action for that list, not this one."""

from apps.accounts.permissions import role_rule, rule

role_rule("evaluation.manage")  # admins only
role_rule("evaluation.inspect")  # admins only: see above for experts


@rule("evaluation.view")
def _view(user, obj=None):
    return True
