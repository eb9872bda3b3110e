"""Rulebook files, immutable versions, export/reload, the version and diff pages, and the version API."""

import shutil

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import DatabaseError, transaction

from apps.consultations import rulebook_files
from apps.consultations.models import ImmutableVersion, Rule, Rulebook, RulebookVersion
from apps.consultations.rulebooks import (
    RulebookConflict,
    diff_versions,
    export_version,
    load_rulebooks,
    publish_version,
    version_spec,
)

pytestmark = pytest.mark.django_db

CONSULTATION_PROVENANCE = {
    "source": "consultation", "round": 1, "question": 1, "question_title": "Time-sensitive answers",
    "decision": "B. Rewrite with a year", "answered_by": ["erin_expert (2026-12-02)"], "decided_by": "experts in agreement",
    "decided_at": "2026-12-02", "approved_by": "erin_expert", "approved_at": "2026-12-02", "edited_on_approval": False,
}


def _v2(user=None) -> RulebookVersion:
    book = Rulebook.objects.get(slug="ko-hypertranslation")
    return publish_version(
        book,
        additions=[
            {"id": "ht-time-sensitive", "category": "time_sensitive_answers", "statement": "Rewrite with an explicit year.",
             "examples": [{"input": "Who is the president of France?", "output": "2019년 프랑스 대통령은 누구인가요?"}],
             "scope": {"task_types": ["short_answer"], "subsets": []}, "provenance": CONSULTATION_PROVENANCE},
            {"id": "ht-dates", "category": "dates", "statement": "Convert dates to year, month, day with 년 월 일.",
             "examples": [{"input": "March 7, 1901", "output": "1901년 3월 7일"}], "scope": {"task_types": [], "subsets": []},
             "provenance": CONSULTATION_PROVENANCE},
        ],
        removals=["ht-wordplay"],
        notes="test version",
        source="consultation round 1",
        user=user,
    )


def test_loading_the_repository_rulebooks_is_idempotent():
    first = load_rulebooks()
    assert {o.version.rulebook.slug for o in first} == {"ko-hypertranslation", "ko-normalization"}
    assert all(o.created for o in first)
    again = load_rulebooks()
    assert not any(o.created for o in again)
    assert RulebookVersion.objects.count() == 4  # hypertranslation v1, normalization v1, v2 (with tables) and v3
    hyper = Rulebook.objects.get(slug="ko-hypertranslation").latest_version()
    categories = list(hyper.rules.values_list("category", flat=True))
    assert categories == [
        "multiple_choice_labels", "proper_nouns", "terminology", "register", "dates", "currency_and_units",
        "fixed_phrases", "aliases", "case_removal", "letter_mapping", "grammar_redesign", "wordplay",
    ]
    aliases = hyper.rules.get(rule_id="ht-aliases")
    assert aliases.examples == [{"input": "Netherlands", "output": "[네덜란드, 화란, 홀란드]"}]
    norm = Rulebook.objects.get(slug="ko-normalization").latest_version()
    assert norm.rules.get(rule_id="nm-units").examples[0] == {"input": "g/mL", "output": "그램 퍼 밀리리터"}
    assert norm.number == 3 and norm.rules.count() == 16
    assert norm.rules.get(rule_id="nm-counter-numerals").data["native_counters"][:2] == ["개", "명"]


def test_the_committed_files_are_exactly_what_export_writes(tmp_path):
    load_rulebooks()
    for slug, number in (("ko-hypertranslation", 1), ("ko-normalization", 1), ("ko-normalization", 2), ("ko-normalization", 3)):
        version = RulebookVersion.objects.get(rulebook__slug=slug, number=number)
        yaml_path, md_path = export_version(version, tmp_path)
        committed = settings.RULEBOOKS_DIR / yaml_path.relative_to(tmp_path)
        assert yaml_path.read_text(encoding="utf-8") == committed.read_text(encoding="utf-8")
        assert md_path.read_text(encoding="utf-8") == committed.with_suffix(".md").read_text(encoding="utf-8")


def test_export_and_reload_give_the_same_rules(tmp_path, admin):
    root = tmp_path / "rulebooks"
    shutil.copytree(settings.RULEBOOKS_DIR, root)
    load_rulebooks(root)
    v2 = _v2(admin)
    call_command("export_rulebook", "ko-hypertranslation", "--version", "2", "--dir", str(root))
    exported = rulebook_files.parse_file(root / "ko" / "hypertranslation" / "v2.yaml")
    assert exported == version_spec(v2)
    assert [r.id for r in exported.rules if r.id == "ht-time-sensitive"]
    assert "ht-wordplay" not in {r.id for r in exported.rules}
    # Reloading the folder with the exported file recognises every version as already published.
    outcomes = load_rulebooks(root)
    assert len(outcomes) == 5 and not any(o.created for o in outcomes)
    markdown = (root / "ko" / "hypertranslation" / "v2.md").read_text(encoding="utf-8")
    assert "ht-time-sensitive" in markdown and "approved by erin_expert" in markdown


def test_a_file_that_rewrites_a_published_version_is_refused(tmp_path):
    root = tmp_path / "rulebooks"
    shutil.copytree(settings.RULEBOOKS_DIR, root)
    load_rulebooks(root)
    path = root / "ko" / "normalization" / "v1.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("오분의 이", "이 나누기 오"), encoding="utf-8")
    with pytest.raises(RulebookConflict, match="already published with different rules"):
        load_rulebooks(root)


def test_a_bad_rule_is_named_with_its_file(tmp_path):
    root = tmp_path / "rulebooks"
    (root / "ko" / "normalization").mkdir(parents=True)
    source = (settings.RULEBOOKS_DIR / "ko" / "normalization" / "v1.yaml").read_text(encoding="utf-8")
    (root / "ko" / "normalization" / "v1.yaml").write_text(
        source.replace("  statement: Expand currency symbols after reading the number.\n", ""), encoding="utf-8"
    )
    with pytest.raises(rulebook_files.RulebookFileError, match=r"v1\.yaml: rule nm-currency: statement: Field required"):
        load_rulebooks(root)
    assert not RulebookVersion.objects.exists()


def test_a_published_rule_cannot_be_changed():
    load_rulebooks()
    rule = Rule.objects.get(rule_id="ht-dates")
    rule.statement = "something else"
    with pytest.raises(ImmutableVersion):
        rule.save()
    # Also below the ORM's save(): the database refuses the update.
    with pytest.raises(DatabaseError), transaction.atomic():
        Rule.objects.filter(pk=rule.pk).update(statement="something else")
    assert Rule.objects.get(pk=rule.pk).statement.startswith("Convert dates")


def test_a_new_version_is_new_rows_and_the_old_one_stays():
    load_rulebooks()
    v1 = RulebookVersion.objects.get(rulebook__slug="ko-hypertranslation", number=1)
    before = list(v1.rules.values_list("pk", "statement"))
    v2 = _v2()
    assert v2.number == 2
    assert list(v1.rules.values_list("pk", "statement")) == before
    assert not set(v2.rules.values_list("pk", flat=True)) & {pk for pk, _ in before}
    changes = {c.rule_id: c.kind for c in diff_versions(v1, v2)}
    assert changes == {"ht-time-sensitive": "added", "ht-dates": "changed", "ht-wordplay": "removed"}


def test_the_diff_page_shows_added_changed_and_removed_rules_with_provenance(client_for, expert):
    load_rulebooks()
    _v2()
    page = client_for(expert).get("/consultations/rulebooks/ko-hypertranslation/diff/?from=1&to=2")
    assert page.status_code == 200
    html = page.content.decode()
    assert "1 added · 1 changed · 1 removed" in html
    assert 'data-rule="ht-time-sensitive" data-kind="added"' in html
    assert 'data-rule="ht-dates" data-kind="changed"' in html
    assert 'data-rule="ht-wordplay" data-kind="removed"' in html
    assert "consultation, round 1, question 1" in html and "approved by erin_expert" in html
    assert "seeded from KVoiceBench paper, Appendix B, Table 3 (Wordplay, redesign)" in html


def test_a_diff_naming_a_missing_version_answers_with_the_versions_and_diffs_that_exist(client_for, expert):
    load_rulebooks()
    page = client_for(expert).get("/consultations/rulebooks/ko-normalization/diff/?from=2&to=9")
    assert page.status_code == 200  # the rulebook exists; the page says what it has instead of a 404
    html = page.content.decode()
    assert "ko-normalization has no version 9" in html
    assert '/consultations/rulebooks/ko-normalization/diff/?from=1&amp;to=2">v1 → v2</a>' in html
    assert "have the same rules" not in html  # no comparison was made


def test_the_version_page_filters_by_category_and_searches(client_for, expert):
    load_rulebooks()
    client = client_for(expert)
    whole = client.get("/consultations/rulebooks/ko-normalization/v1/").content.decode()
    assert whole.count('class="card rule"') == 12
    units = client.get("/consultations/rulebooks/ko-normalization/v1/?category=units").content.decode()
    assert units.count('class="card rule"') == 1 and "그램 퍼 밀리리터" in units
    found = client.get("/consultations/rulebooks/ko-normalization/v1/", {"q": "퍼센트"}, HTTP_HX_REQUEST="true")
    assert found.content.decode().count('class="card rule"') == 1 and "nm-percent" in found.content.decode()


def test_the_version_api_returns_the_rules(api_client, expert, listener):
    load_rulebooks()
    api_client.force_authenticate(expert)
    body = api_client.get("/api/rulebooks/ko-hypertranslation/versions/1/").json()
    assert body["version"] == 1 and body["kind"] == "hypertranslation" and len(body["rules"]) == 12
    assert body["rules"][0]["id"] == "ht-mc-labels"
    assert body["rules"][0]["examples"] == [{"input": "A. Igneous / B. Sedimentary", "output": "ㄱ. 화성암 / ㄴ. 퇴적암"}]
    assert api_client.get("/api/rulebooks/ko-hypertranslation/versions/9/").status_code == 404
    api_client.force_authenticate(listener)
    assert api_client.get("/api/rulebooks/ko-hypertranslation/versions/1/").status_code == 403
