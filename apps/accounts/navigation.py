"""Role-aware navigation and home-page queues, contributed by each app.

An app's AppConfig may define `nav_links(self, user) -> list[NavLink]` and
`home_panels(self, user) -> list[Panel]`; the base template and the home page collect them, so a new
workflow appears for the right people without touching this app."""

from dataclasses import dataclass

from django.apps import apps


@dataclass(frozen=True)
class NavLink:
    label: str
    url: str


@dataclass(frozen=True)
class Panel:
    """One queue or shortcut on a person's home page."""

    title: str
    url: str
    description: str = ""
    count: int | None = None  # items waiting for this person, when it is a queue
    role: str = ""


def nav_links(user) -> list[NavLink]:
    return [link for cfg in apps.get_app_configs() for link in getattr(cfg, "nav_links", _none)(user)]


def home_panels(user) -> list[Panel]:
    return [panel for cfg in apps.get_app_configs() for panel in getattr(cfg, "home_panels", _none)(user)]


def _none(user):
    return []
