"""A refusal is read by a person, so its message goes through gettext: `raise InvalidInput("...")` or an f-string
cannot be extracted into the catalogue. This walks the source of apps/ (not the vendored IFEval code) for a raise
of any ApplicationError subclass, and for django's messages.success/error/..., whose message is a bare string
or f-string constant."""

import ast
from pathlib import Path

from django.conf import settings
from django.utils import translation

from apps.core.errors import InvalidInput
from apps.core.posted import number

APPS = Path(settings.BASE_DIR) / "apps"
VENDORED = APPS / "evaluation" / "ifeval_checks"
MESSAGE_LEVELS = {"debug", "info", "success", "warning", "error"}


def _name(node: ast.expr) -> str | None:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def _sources() -> dict[Path, ast.Module]:
    return {
        path: ast.parse(path.read_text(), str(path))
        for path in sorted(APPS.rglob("*.py"))
        if "migrations" not in path.parts and not path.is_relative_to(VENDORED)
    }


def _message_positions(trees) -> dict[str, int | None]:
    """Each ApplicationError subclass in apps/ with the position of its message argument (a subclass may
    take a field or a file name first: LicenceRefused(field, message), AudioRejected(name, reason))."""
    classes = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                init = next((b for b in node.body if isinstance(b, ast.FunctionDef) and b.name == "__init__"), None)
                params = [a.arg for a in init.args.args[1:]] if init else None
                classes[node.name] = ([_name(b) for b in node.bases], params)
    positions = {"ApplicationError": 0}
    grew = True
    while grew:
        grew = False
        for cls, (bases, params) in classes.items():
            parent = next((b for b in bases if b in positions), None)
            if cls in positions or parent is None:
                continue
            positions[cls] = positions[parent] if params is None else next(
                (i for i, a in enumerate(params) if a in ("message", "reason")), None)
            grew = True
    return positions


def _bare_messages(tree: ast.Module, positions) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and positions.get(_name(node.exc.func)) is not None:
            call, at = node.exc, positions[_name(node.exc.func)]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MESSAGE_LEVELS
              and _name(node.func.value) == "messages"):
            call, at = node, 1
        else:
            continue
        message = call.args[at] if len(call.args) > at else next(
            (k.value for k in call.keywords if k.arg in ("message", "reason")), None)
        if isinstance(message, ast.JoinedStr) or (isinstance(message, ast.Constant) and isinstance(message.value, str)):
            found.append((node.lineno, ast.unparse(message)[:80]))
    return found


def test_every_refusal_and_page_message_goes_through_gettext():
    trees = _sources()
    positions = _message_positions(trees)
    assert {"NotFound", "FileRefused", "LicenceRefused", "AudioRejected", "MediaRejected"} <= set(positions)
    bare = [f"{path.relative_to(APPS.parent)}:{line}: {text}"
            for path, tree in trees.items() for line, text in _bare_messages(tree, positions)]
    assert not bare, "wrap these in gettext (f-strings become gettext('... %(name)s') % {...}):\n" + "\n".join(bare)


def test_the_walk_finds_the_old_shape():
    old = ast.parse(
        'raise InvalidInput(f"{name} must be a number", field=name)\n'
        'raise LicenceRefused("sources", "name at least one source")\n'
        'messages.success(request, "Targets saved.")\n'
        'raise InvalidInput(gettext("%(name)s must be a number") % {"name": name})\n'
        'raise LicenceRefused("sources", gettext("name at least one source"))\n'
    )
    positions = {"ApplicationError": 0, "InvalidInput": 0, "LicenceRefused": 1}
    assert [line for line, _ in _bare_messages(old, positions)] == [1, 2, 3]


def test_a_refusal_speaks_the_active_language():
    with translation.override("en"):
        english = _refusal()
    with translation.override("ko"):
        korean = _refusal()
    assert english == "score must be a whole number"
    assert korean != english and "score" in korean


def _refusal() -> str:
    try:
        number({"score": "x"}, "score", whole=True)
    except InvalidInput as refused:
        return refused.message
    raise AssertionError("not refused")
