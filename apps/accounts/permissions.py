"""The one place that answers "may this user do X on this object".

Apps register a rule per action in their own `rules.py` (imported when the app is ready):

    @rule("listening.rate_clip")
    def _(user, clip): ...

Views, API permission classes and templates all ask `can(user, action, obj)`; a view that refuses outright
calls `require(user, action, obj)`, which raises Forbidden (a 403 page, or the API's error body). An action
without a rule is refused, so a forgotten registration fails closed. Admins may do everything; an
admin-only action is registered with no roles (`role_rule("releases.manage")`).
"""

from collections.abc import Callable

from django.utils.translation import gettext
from rest_framework.permissions import BasePermission

from apps.accounts.roles import Role
from apps.core.errors import Forbidden

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


class HasRole(BasePermission):
    """DRF permission: `permission_classes = [HasRole.of(Role.LISTENER)]`. Admins always pass."""

    roles: tuple[Role, ...] = ()

    @classmethod
    def of(cls, *roles: Role) -> type["HasRole"]:
        return type(f"HasRole_{'_'.join(roles)}", (cls,), {"roles": roles})

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not user or not user.is_authenticated:
            return False
        return user.has_role(Role.ADMIN) or any(user.has_role(r) for r in self.roles)


class IsSoriAdmin(HasRole):
    roles = (Role.ADMIN,)
