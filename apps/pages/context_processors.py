from django.conf import settings


def demo_provider(request) -> dict:
    """`demo_provider`: the agents answer from the scripted demo provider (the base template says so)."""
    return {"demo_provider": settings.SORI_DEMO_PROVIDER}
