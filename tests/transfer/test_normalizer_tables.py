"""The normalizer's tables: the required set is what the engine reads, and a rulebook version missing any of
them is refused up front, naming the table (not a KeyError in the middle of a run). The rulebook's own
`examples:` are read by the engine as the rulebook says."""

import ast
from pathlib import Path

import pytest
from django.conf import settings

from apps.consultations import rulebook_files
from apps.transfer import normalizer
from apps.transfer.normalizer import MissingTables, Normalizer, Tables
from apps.transfer.normalizer.tables import OPTIONAL, REQUIRED, TABLES

ENGINE_MODULES = sorted(Path(normalizer.__file__).parent.glob("*.py"))
NORMALIZATION_FILES = [p for p in rulebook_files.discover(Path(settings.RULEBOOKS_DIR)) if p.parent.name == "normalization"]


def _tables_read_by_the_engine() -> set[str]:
    """Every table name the engine's code reads through its accessor: t["name"], t.rule("name"),
    t.optional("name") (t, self.t or tables)."""
    names = set()
    for path in ENGINE_MODULES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Subscript) and _is_tables(node.value) and isinstance(node.slice, ast.Constant):
                names.add(node.slice.value)
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("rule", "optional")
                    and _is_tables(node.func.value) and node.args and isinstance(node.args[0], ast.Constant)):
                names.add(node.args[0].value)
    return names


def _is_tables(node) -> bool:
    return (isinstance(node, ast.Name) and node.id in ("t", "tables")) or (isinstance(node, ast.Attribute) and node.attr == "t")


def _spec(version: int):
    return rulebook_files.parse_file(Path(settings.RULEBOOKS_DIR) / "ko" / "normalization" / f"v{version}.yaml")


def test_the_declared_tables_are_exactly_the_ones_the_engine_reads():
    read = _tables_read_by_the_engine()
    assert len(read) > 40  # the scan finds the engine's reads (the issue counted 45 when it was filed)
    assert set(TABLES) == read
    assert REQUIRED == read - OPTIONAL


@pytest.mark.parametrize("table", sorted(REQUIRED))
def test_a_version_missing_any_table_the_engine_reads_is_refused_naming_it(table):
    rules = [(rule.id, {k: v for k, v in (rule.data or {}).items() if k != table}) for rule in _spec(3).rules]
    with pytest.raises(MissingTables, match=rf"no table {table}\b") as refused:
        Tables(rules)
    assert refused.value.missing == [table]


def test_version_one_without_tables_is_refused_up_front():
    with pytest.raises(MissingTables) as refused:
        Tables([(rule.id, rule.data) for rule in _spec(1).rules])
    assert set(refused.value.missing) == REQUIRED


def test_an_optional_table_may_be_missing_and_a_read_of_an_undeclared_one_fails():
    tables = Tables([(rule.id, rule.data) for rule in _spec(2).rules])  # version 2 has no age_decades
    assert tables.optional("age_decades") is None
    with pytest.raises(LookupError, match="does not declare"):
        tables["no_such_table"]


def _examples():
    for path in NORMALIZATION_FILES:
        spec = rulebook_files.parse_file(path)
        try:
            Tables([(rule.id, rule.data) for rule in spec.rules])
        except MissingTables:
            continue  # version 1 has no tables (refused above); its examples are read by the agent only
        for rule in spec.rules:
            for example in rule.examples:
                # "3개 / 3분" -> "세 개 / 삼 분" lists two examples in one.
                inputs, outputs = example.input.split(" / "), example.output.split(" / ")
                pairs = zip(inputs, outputs, strict=True) if len(inputs) == len(outputs) else [(example.input, example.output)]
                for given, expected in pairs:
                    yield pytest.param(spec.version, rule.id, rule.category, given, expected,
                                       id=f"v{spec.version}-{rule.id}-{given}")


_ENGINES: dict[int, Normalizer] = {}


def _engine(version: int) -> Normalizer:
    if version not in _ENGINES:
        _ENGINES[version] = Normalizer(Tables([(rule.id, rule.data) for rule in _spec(version).rules]))
    return _ENGINES[version]


def test_every_shipped_normalization_version_has_examples():
    versions = {param.values[0] for param in _examples()}
    assert versions >= {2, 3}


@pytest.mark.parametrize(("version", "rule_id", "category", "given", "expected"), list(_examples()))
def test_the_rulebook_examples_read_as_the_rulebook_says(version, rule_id, category, given, expected):
    result = _engine(version).normalize(given)
    if category != "context_dependent" or not result.pending:
        assert result.text == expected
        assert not result.pending
        return
    # A context-dependent span is left as written for the agent; the reading the example gives must be among
    # the ones the engine offers it (the example may also drop an English word, as "1st place" -> "일 등").
    assert result.text == given
    for pending in result.pending:
        readings = _engine(version).possible_readings(pending.span, pending.kind)
        assert any(reading in expected for reading in readings), (pending, readings)


def test_the_josa_of_equals_is_chosen_where_it_is_read_so_span_readings_show_it_too():
    engine = _engine(3)
    joined, spaced = engine.normalize("x=3"), engine.normalize("3 + 4 = 7")
    assert (joined.text, spaced.text) == ("엑스는 삼", "삼 더하기 사는 칠")
    assert {r["span"]: r["reading"] for r in joined.readings}["x=3"] == "엑스는 삼"
    assert {r["span"]: r["reading"] for r in spaced.readings}["="] == "는"
    assert not any("\x00" in r["reading"] for r in joined.readings + spaced.readings)
