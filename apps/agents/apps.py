from django.apps import AppConfig
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from apps.accounts.navigation import NavLink, Panel
from apps.accounts.permissions import can


class AgentsConfig(AppConfig):
    name = "apps.agents"
    label = "agents"
    verbose_name = "Agents (LLM calls)"

    def ready(self):
        # Here, not at the top: they import models, which cannot load before the app registry is ready.
        from apps.agents import jobs, rules  # noqa: F401  (register the job handler and permission rules)
        from apps.agents.untrusted import redact_client_logs

        redact_client_logs()  # no URL userinfo or key header in an HTTP client's log line

    def nav_links(self, user):
        if can(user, "agents.manage"):
            return [NavLink(_("Agents"), reverse("agents:overview"), group="system", order=20)]
        return []

    def home_panels(self, user):
        if not can(user, "agents.manage"):
            return []
        from apps.agents import selectors  # imports models: not at the top of apps.py (see ready)

        status = selectors.provider_status()
        missing = [s for s in status if not s["configured"]]
        description = (
            "No provider is configured for: " + ", ".join(s["label"] for s in missing)
            if missing else "Every agent role has a configured provider."
        )
        return [Panel(_("Agents and LLM cost"), reverse("agents:overview"), description=description, role="admin")]
