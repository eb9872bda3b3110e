"""The one place that answers "may this user do X on this object".

Apps register a rule per action in their own `rules.py` (imported when the app is ready):

    @rule("listening.rate_clip")
    def _(user, clip): ...

Views, the API's permission (`Can(action)`) and templates all ask `can(user, action, obj)`; a view that
refuses outright calls `require(user, action, obj)`, which raises Forbidden (a 403 page, or the API's error
body), and `fetch(request, Model, pk, action)` gets an object only for someone who may act on it. An action
without a rule is refused, so a forgotten registration fails closed. Admins may do everything; an
admin-only action is registered with no roles (`role_rule("releases.manage")`).
"""

from collections.abc import Callable

from django.utils.translation import gettext
from rest_framework.permissions import SAFE_METHODS, BasePermission

from apps.accounts.roles import Role
from apps.core.errors import Forbidden, NotFound

Rule = Callable[..., bool]
_rules: dict[str, Rule] = {}


def rule(action: str) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        if action in _rules and _rules[action] is not fn:
            raise ValueError(f"a rule for {action!r} is already registered")
        _rules[action] = fn
        return fn

    return register


def can(user, action: str, obj=None) -> bool:
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    if user.has_role(Role.ADMIN):
        return True
    check = _rules.get(action)
    if check is None:
        return False
    return bool(check(user, obj))


def require(user, action: str, obj=None) -> None:
    """`can`, or refuse with Forbidden."""
    if not can(user, action, obj):
        raise Forbidden(gettext("Your roles do not allow this (%(action)s).") % {"action": action})


def role_rule(action: str, *roles: Role) -> None:
    """Register an action that any holder of one of `roles` may do, whatever the object. With no roles the
    action is for admins only."""
    rule(action)(lambda user, obj=None: any(user.has_role(r) for r in roles))


class Can(BasePermission):
    """The API's permission, asking the same `can()` as the pages: `permission_classes = [Can("listening.rate")]`.
    With `write=`, reads (GET, HEAD, OPTIONS) need `action` and every other method `write`. An instance stands
    in for a class (DRF calls each entry of permission_classes to get its permission), so the action is named
    beside the view instead of in a class made for it."""

    def __init__(self, action: str, *, write: str | None = None):
        self.action = action
        self.write = write or action

    def __call__(self) -> "Can":
        return self

    def __repr__(self) -> str:
        return f"Can({self.action!r})" if self.write == self.action else f"Can({self.action!r}, write={self.write!r})"

    def has_permission(self, request, view) -> bool:
        return can(request.user, self.action if request.method in SAFE_METHODS else self.write)


def fetch(request, model, pk, action: str):
    """The object `pk` of `model` (a model, manager or queryset) if the person may do `action` on it
    (healthchecks' `_get_rw_check_for_user`): NotFound when there is no such object, Forbidden when the
    rules say no."""
    queryset = model._default_manager.all() if isinstance(model, type) else model.all()
    try:
        obj = queryset.get(pk=pk)
    except queryset.model.DoesNotExist:
        raise NotFound(gettext(
            "No %(verbose_name)s with id %(pk)s."
        ) % {"verbose_name": queryset.model._meta.verbose_name, "pk": pk}) from None
    require(request.user, action, obj)
    return obj
