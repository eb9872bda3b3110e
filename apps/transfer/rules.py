"""Who may do what in transfer (asked through apps.accounts.permissions; admins pass every rule). Admins
import benchmarks, run the ground-truth stage, and start or continue translation and normalization runs;
experts read the translation runs, correct a translation and try the normalizer."""

from apps.accounts.permissions import role_rule
from apps.accounts.roles import Role

role_rule("transfer.manage")  # admins only
role_rule("transfer.review", Role.EXPERT)
