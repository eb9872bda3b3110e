"""Who may use the speech pages: admins only (they pass every rule before it is asked)."""

from apps.accounts.permissions import role_rule

role_rule("speech.manage")
