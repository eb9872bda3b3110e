"""A number from a submitted form: one reader (apps.core.posted.number, Django's own form fields) for every page."""

import ast
from pathlib import Path

import pytest
from django.conf import settings
from django.http import QueryDict

from apps.core import posted
from apps.core.errors import InvalidInput

ROOT = Path(settings.BASE_DIR)


@pytest.mark.parametrize(("raw", "whole", "expected"), [
    ("0.7", False, 0.7), (" 3 ", False, 3.0), ("1e-2", False, 0.01), ("12", True, 12), ("-4", True, -4),
    ("", False, None), ("", True, None),
])
def test_it_reads_a_number_and_none_for_an_empty_field(raw, whole, expected):
    assert posted.number(QueryDict(f"x={raw}"), "x", whole=whole) == expected


def test_a_missing_field_is_none():
    assert posted.number(QueryDict(""), "top_p") is None


@pytest.mark.parametrize(("raw", "whole", "message"), [
    ("warm", False, "temperature must be a number"), ("nan", False, "temperature must be a number"),
    ("inf", False, "temperature must be a number"), ("1.5", True, "temperature must be a whole number"),
    ("ten", True, "temperature must be a whole number"),
])
def test_anything_else_is_refused_naming_the_field(raw, whole, message):
    with pytest.raises(InvalidInput) as refused:
        posted.number(QueryDict(f"temperature={raw}"), "temperature", whole=whole)
    assert (refused.value.message, refused.value.field) == (message, "temperature")


def _hand_parsed(path: Path) -> list[int]:
    """Lines that call int() or float() on a value read with .get(...) (request.POST.get, form.get...)."""
    return [node.lineno for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"int", "float"}
            and node.args and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get"
                                  for n in ast.walk(node.args[0]))]


def test_no_view_parses_a_submitted_number_by_hand():
    for path in (ROOT / "apps").rglob("views*.py"):
        assert not _hand_parsed(path), path
