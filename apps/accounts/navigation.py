"""Navigation and home page, contributed by each app.

An app's AppConfig may define, each taking the signed-in user:
- `nav_links(user) -> list[NavLink]`: its entries in the top menu, each in a workflow group;
- `home_panels(user) -> list[Panel]`: queues and shortcuts on the person's home page;
- `pipeline_stages(user) -> list[Stage]`: its stages of a workflow's pipeline, with a count (admins);
- `todos(user) -> list[Todo]`: what needs a person now, only when there is something (admins).
The base template and the home page collect them and only group and order them, so a new workflow appears
for the right people without touching this app. A hook decides with `can(user, action)`, never by role, so
the menu and the home page show what the app's rules.py allows, as its pages and API do."""

from dataclasses import dataclass
from itertools import groupby

from django.apps import apps
from django.utils.translation import gettext_lazy as _

# The workflows in the order a person meets them: the top menu's groups and the home page's pipelines.
WORKFLOWS = {
    "spoken_qa": _("Spoken QA"),
    "mos": "MOS",
    "hpsu": "HPSU",
    "kmmau": "KMMAU",
    "evaluation": _("Evaluation"),
    "system": _("System"),
}


@dataclass(frozen=True)
class NavLink:
    label: str
    url: str
    group: str = "system"  # a key of WORKFLOWS
    order: int = 0  # position inside the group: the workflow's pipeline order


@dataclass(frozen=True)
class NavGroup:
    key: str
    label: str
    links: list[NavLink]


@dataclass(frozen=True)
class Panel:
    """One queue or shortcut on a person's home page."""

    title: str
    url: str
    description: str = ""
    count: int | None = None  # items waiting for this person, when it is a queue
    role: str = ""


@dataclass(frozen=True)
class Stage:
    """One stage of a workflow's pipeline on the admin's home page: how many items have reached it."""

    workflow: str  # a key of WORKFLOWS
    order: int
    label: str
    count: int
    url: str
    unit: str = ""  # what the count counts, e.g. "samples", "ratings"
    detail: str = ""  # a short breakdown in words, e.g. "3 published"


@dataclass(frozen=True)
class Todo:
    """Something that waits for a person now, linked to where it is done. Apps return one only when it is true."""

    text: str
    url: str
    count: int | None = None
    workflow: str = "system"


@dataclass(frozen=True)
class Pipeline:
    key: str
    label: str
    stages: list[Stage]


def _collect(hook: str, user) -> list:
    return [entry for cfg in apps.get_app_configs() for entry in getattr(cfg, hook, _none)(user)]


def _workflow_rank(key: str) -> int:
    keys = list(WORKFLOWS)
    return keys.index(key) if key in keys else len(keys)


def nav_links(user) -> list[NavLink]:
    return _collect("nav_links", user)


def nav_groups(user) -> list[NavGroup]:
    """The top menu: the user's links grouped by workflow, groups and links each in pipeline order."""
    links = sorted(nav_links(user), key=lambda link: (_workflow_rank(link.group), link.order))
    return [NavGroup(key, WORKFLOWS.get(key, key), list(group)) for key, group in groupby(links, key=lambda link: link.group)]


def home_panels(user) -> list[Panel]:
    return _collect("home_panels", user)


def pipelines(user) -> list[Pipeline]:
    """Each workflow's stages in order, from what every app contributes."""
    stages = sorted(_collect("pipeline_stages", user), key=lambda s: (_workflow_rank(s.workflow), s.order))
    return [Pipeline(key, WORKFLOWS.get(key, key), list(group)) for key, group in groupby(stages, key=lambda s: s.workflow)]


def todos(user) -> list[Todo]:
    return sorted(_collect("todos", user), key=lambda todo: _workflow_rank(todo.workflow))


def _none(user):
    return []
