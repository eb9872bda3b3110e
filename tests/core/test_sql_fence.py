"""Hand-written SQL lives in a named sql.py per app (issue 35 §5): domain code calls its functions by name and
opens no cursor of its own. Migrations may run SQL, and apps/core/prepared.py is the cursor the sql modules
use for their hot-path statements."""

import ast
from pathlib import Path

APPS = Path(__file__).resolve().parents[2] / "apps"

# Calls that open a cursor or run SQL text: `connection.cursor()`, `cursor.execute(...)`, `Model.objects.raw(...)`,
# `qs.extra(...)`, `RawSQL(...)`, `prepared_cursor()`.
RAW_CALLS = {"cursor", "execute", "executemany", "raw", "extra", "RawSQL", "prepared_cursor", "_prepare_cursor"}

# The cursor itself (its subclass and factory).
CURSOR_MODULE = "core/prepared.py"


def raw_sql_calls(path: Path, root: Path = APPS.parent) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name in RAW_CALLS:
            found.append(f"{path.relative_to(root)}:{node.lineno} {name}()")
    return found


def test_no_module_but_an_apps_sql_py_opens_a_cursor_or_runs_sql_text():
    outside = []
    for path in sorted(APPS.rglob("*.py")):
        relative = path.relative_to(APPS).as_posix()
        if path.name == "sql.py" or "/migrations/" in relative or relative == CURSOR_MODULE:
            continue
        outside += raw_sql_calls(path)
    assert not outside, "raw SQL outside an app's sql.py:\n" + "\n".join(outside)


def test_the_fence_sees_a_cursor_in_domain_code(tmp_path):
    domain = tmp_path / "services.py"
    domain.write_text("from django.db import connection\n\ndef f():\n"
                      "    with connection.cursor() as cursor:\n        cursor.execute('SELECT 1')\n")
    # The shape the issue found in ten files before: the fence names each call.
    assert [line.split(" ")[1] for line in raw_sql_calls(domain, root=tmp_path)] == ["cursor()", "execute()"]
