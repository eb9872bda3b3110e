"""One vocabulary for "may they?": the API asks the rules (`Can(action)`) as the pages do, and `fetch` gets an
object only for someone who may act on it."""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.permissions import IsAuthenticated
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from apps.accounts import permissions
from apps.accounts.permissions import Can, fetch
from apps.core.errors import Forbidden, NotFound
from apps.jobs.models import Job


def _api_views(patterns=None, prefix=""):
    """(route, view class) of every DRF view the project routes to."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            yield from _api_views(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            view = getattr(entry.callback, "cls", None)
            if isinstance(view, type) and issubclass(view, APIView):
                yield prefix + str(entry.pattern), view


def test_every_api_permission_is_a_rule_and_none_names_a_role():
    """rules.py is the truth for the API: a permission is Can(action) of a registered action, or only "signed
    in" where the view asks the rules per object (fetch)."""
    views = list(_api_views())
    assert len(views) > 30
    for route, view in views:
        for entry in view.permission_classes:
            if isinstance(entry, Can):
                for action in (entry.action, entry.write):
                    assert action in permissions._rules, f"{route}: {entry!r} names an action with no rule"
            else:
                assert entry is IsAuthenticated or not view.__module__.startswith("apps."), f"{route}: {entry!r}"


def _allowed(permission, user, method="get"):
    request = getattr(APIRequestFactory(), method)("/")
    request.user = user
    return permission().has_permission(request, None)


def test_can_asks_the_rule_and_admins_pass_every_rule(admin, listener, annotator):
    assert _allowed(Can("listening.rate"), listener)
    assert not _allowed(Can("listening.rate"), annotator)
    assert _allowed(Can("listening.rate"), admin)
    assert not _allowed(Can("listening.manage"), listener)


def test_can_with_write_asks_one_rule_for_reads_and_another_for_writes(admin, listener):
    read_or_manage = Can("evaluation.view", write="evaluation.manage")
    assert _allowed(read_or_manage, listener, "get") and _allowed(read_or_manage, listener, "head")
    assert not _allowed(read_or_manage, listener, "post")
    assert _allowed(read_or_manage, admin, "post")


def test_fetch_gets_an_object_only_for_someone_who_may_act_on_it(admin, listener, listeners):
    own = Job.objects.create(kind="test.kind", title="mine", created_by=listener)
    request = APIRequestFactory().get("/")
    request.user = listener
    assert fetch(request, Job, own.pk, "jobs.view") == own
    assert fetch(request, Job.objects.filter(kind="test.kind"), own.pk, "jobs.view") == own
    other = Job.objects.create(kind="test.kind", title="theirs", created_by=listeners[1])
    with pytest.raises(Forbidden):
        fetch(request, Job, other.pk, "jobs.view")
    with pytest.raises(NotFound):
        fetch(request, Job, other.pk + 1000, "jobs.view")
    with pytest.raises(NotFound):
        fetch(request, Job.objects.filter(kind="other.kind"), own.pk, "jobs.view")
