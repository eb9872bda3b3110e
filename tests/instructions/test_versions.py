"""Participant instructions are the test's own, versioned once anyone agreed or answered under them; consent and
the exports say which version."""

import csv
import io

import pytest

from apps.instructions import defaults
from apps.instructions.models import InstructionVersion
from apps.listening import exports, services
from apps.listening.models import Consent
from tests.authoring.conftest import agent_question, corpus_folder, kss_corpus, question_set  # noqa: F401
from tests.listening.conftest import make_test, rate_via_services, write_manifest  # noqa: F401
from tests.verification.conftest import hpsu, make_project  # noqa: F401

pytestmark = pytest.mark.django_db


def test_a_new_test_offers_komos_protocol_until_the_admin_writes_its_own(make_test, admin):  # noqa: F811
    test = make_test(1)
    shown = services.test_instructions(test)
    assert (shown.number, shown.text_ko, shown.text_en) == (1, *defaults.MOS)
    assert "formal or informal" in shown.text_en and "격식체나 비격식체" in shown.text_ko
    assert "transcript" in shown.text_en and "1 (bad) to 5 (excellent)" in shown.text_en
    assert not InstructionVersion.objects.exists()  # reading stores nothing
    edited = services.revise_instructions(test=test, text_ko="새 안내", text_en="", acting_user=admin)
    again = services.revise_instructions(test=test, text_ko="고친 안내", text_en="Fixed", acting_user=admin)
    assert edited.pk == again.pk and again.number == 1  # nobody agreed or rated yet: edited in place
    assert InstructionVersion.objects.get().text_ko == "고친 안내"


def test_a_change_after_consent_and_ratings_is_a_new_version_and_the_export_names_it(make_test, listeners, admin, client_for):  # noqa: F811
    test = make_test(2)
    first, second = listeners[0], listeners[1]
    client_for(first).post(f"/listening/tests/{test.pk}/", {"agree": "yes"})
    assert Consent.objects.get(listener=first).instructions.number == 1
    rate_via_services(test, first)
    version = services.revise_instructions(test=test, text_ko="두 번째 안내", text_en="Second", acting_user=admin)
    assert version.number == 2
    assert list(InstructionVersion.objects.values_list("number", "text_ko")) == [(1, defaults.MOS[0]), (2, "두 번째 안내")]
    services.record_consent(test=test, acting_user=second)
    assert Consent.objects.get(listener=second).instructions.number == 2
    rate_via_services(test, second)
    with pytest.raises(Exception, match="Korean"):
        services.revise_instructions(test=test, text_ko="  ", acting_user=admin)

    ratings, _clips, _bvcc = exports.build_tables(test)
    by_listener = ratings.groupby("listener")["instructions_version"].apply(set).to_dict()
    assert sorted(map(sorted, by_listener.values())) == [[1], [2]]


def test_the_admin_writes_the_instructions_on_each_dashboard(make_test, make_project, admin, client_for):  # noqa: F811
    from apps.authoring.services import create_question_set, set_instructions
    from apps.verification.services import project_instructions

    client = client_for(admin)
    test = make_test(1)
    page = client.get(f"/listening/manage/tests/{test.pk}/").content.decode()
    assert 'id="instructions-text_ko"' in page and defaults.MOS[0].splitlines()[0] in page
    client.post(f"/listening/manage/tests/{test.pk}/instructions/", {"text_ko": "듣고 평가하세요", "text_en": ""})
    assert services.test_instructions(test).text_ko == "듣고 평가하세요"
    listener_page = client.get(f"/listening/manage/tests/{test.pk}/")
    assert "version 1 is in force" in listener_page.content.decode()

    kmmau = create_question_set(name="set", acting_user=admin)
    client.post(f"/authoring/sets/{kmmau.pk}/instructions/", {"text_ko": "세트 안내", "text_en": "Set"})
    assert (set_instructions(kmmau).text_ko, set_instructions(kmmau).text_en) == ("세트 안내", "Set")

    project = make_project(1)
    assert 'id="instructions-text_en"' in client.get(f"/verification/projects/{project.pk}/").content.decode()
    client.post(f"/verification/projects/{project.pk}/instructions/", {"text_ko": "검수 안내"})
    assert project_instructions(project).text_ko == "검수 안내"


def test_verification_reviews_say_their_instructions_version(make_project, annotators, admin, tmp_path):  # noqa: F811
    from apps.verification import services as verification
    from apps.verification.exports import export_project

    project = make_project(2)
    item = verification.next_item(project=project, acting_user=annotators[0])
    verification.submit_review(item=item, acting_user=annotators[0], decision="approve")
    assert verification.revise_instructions(project=project, text_ko="새 검수 안내", acting_user=admin).number == 2
    item = verification.next_item(project=project, acting_user=annotators[1])
    verification.submit_review(item=item, acting_user=annotators[1], decision="approve")
    export_project(project, tmp_path)
    rows = list(csv.DictReader(io.StringIO((tmp_path / "reviews.csv").read_text(encoding="utf-8"))))
    assert sorted(r["instructions_version"] for r in rows) == ["1", "2"]


def test_kmmau_rows_name_the_instructions_their_reviews_were_given_under(annotators, question_set, agent_question, admin):  # noqa: F811
    from apps.authoring.exports import mmau_rows
    from apps.authoring.services import next_review, revise_instructions, submit_review
    from tests.authoring.conftest import listened

    for number, annotator in enumerate(annotators[:2], start=1):
        if number == 2:
            assert revise_instructions(question_set=question_set, text_ko="검토 안내 2", acting_user=admin).number == 2
        question = next_review(question_set=question_set, acting_user=annotator)
        listened(question.clip, annotator)
        submit_review(question=question, acting_user=annotator, decision="approve")
    (row,) = mmau_rows(question_set)
    assert row["provenance"]["review_instructions_versions"] == [1, 2]
