from django.conf import settings

# Roles whose pages show agent output (agent-written questions, corrections, translations, judge scores).
SEES_AGENT_OUTPUT = ("admin", "expert", "annotator")


def demo_provider(request) -> dict:
    """`demo_provider`: the agents answer from the scripted demo provider. `demo_banner` says whom the base
    template tells: "admin" (scripted, and how to set a key), "agents" (scripted: experts and annotators see
    agent output but cannot set a key), or "" (listeners never see agent output, so nothing)."""
    user = getattr(request, "user", None)
    banner = ""
    if settings.SORI_DEMO_PROVIDER and user is not None and user.is_authenticated:
        if user.is_sori_admin:
            banner = "admin"
        elif any(user.has_role(role) for role in SEES_AGENT_OUTPUT):
            banner = "agents"
    return {"demo_provider": settings.SORI_DEMO_PROVIDER, "demo_banner": banner}
