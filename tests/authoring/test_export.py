"""The export: MMAU test-mini layout scored unchanged by (a copy of) MMAU's evaluation logic, accepted
questions only, licences stated, balanced answer positions; and Sori's own scorer beside a random baseline."""

import json
import wave
from collections import Counter

import pytest
from django.core.management import call_command

from apps.authoring.balance import arrange
from apps.authoring.exports import mmau_rows, write_export
from apps.authoring.models import Question, QuestionStatus
from apps.authoring.selectors import accepted_questions
from apps.authoring.services import generate_rule_questions, read_predictions, score_predictions
from apps.core.errors import FileRefused
from tests.authoring import mmau_evaluation
from tests.authoring.conftest import make_agent_question

MMAU_KEYS = ["id", "audio_id", "question", "choices", "answer", "dataset", "task", "split", "category",
             "sub-category", "difficulty"]


@pytest.fixture
def built_set(question_set, kss_corpus, seoul_corpus):
    """Accepted rule-based questions from two corpora, one accepted segment question, one still in review."""
    generate_rule_questions(question_set=question_set, corpus=kss_corpus)
    generate_rule_questions(question_set=question_set, corpus=seoul_corpus, capabilities=["gender", "age", "num_speakers"])
    clip = kss_corpus.clips.first()
    Question.objects.create(
        question_set=question_set, capability="role_profession", method="manual", clip=clip, start_seconds=0.25,
        end_seconds=1.0, text="화자의 직업으로 알맞은 것은?", options=["교사", "의사", "기자", "요리사"], correct_index=2,
        dedup_key="role_profession", status=QuestionStatus.ACCEPTED, provenance={"method": "manual"},
    )
    make_agent_question(question_set, clip)  # in review: must not be exported
    return question_set


def test_rows_have_mmau_test_mini_keys_and_only_accepted_questions(built_set):
    rows = mmau_rows(built_set)
    accepted = accepted_questions(built_set).count()
    assert len(rows) == accepted and accepted == Question.objects.filter(question_set=built_set).count() - 1
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)
    for row in rows:
        assert all(key in row for key in MMAU_KEYS)
        assert row["answer"] in row["choices"]  # the text of the correct choice
        assert row["task"] == "speech" and row["difficulty"] in {"easy", "medium", "hard"}
        assert row["category"] in {"Acoustic", "Contextual"}
        assert row["license"] in {"CC-BY-NC-SA-4.0", "CC-BY-NC-2.0"}
    segment = next(r for r in rows if r["capability"] == "role_profession")
    assert segment["audio_id"].endswith("_0.25-1.00.wav") and segment["sub-category"] == "Role/Profession"


def test_the_export_is_scored_unchanged_by_mmau_evaluation(built_set, tmp_path):
    write_export(built_set, tmp_path / "out")
    rows = json.loads((tmp_path / "out" / "kmmau.json").read_text(encoding="utf-8"))
    # A runner fills in model_output: right for every other row, a wrong choice for the rest.
    expected_right = 0
    for n, row in enumerate(rows):
        if n % 2 == 0:
            row["model_output"] = row["answer"]
            expected_right += 1
        else:
            row["model_output"] = next(c for c in row["choices"] if c != row["answer"])
        assert (tmp_path / "out" / row["audio_id"]).is_file()
    result = mmau_evaluation.evaluate(rows)  # raises KeyError on a task or difficulty it does not know
    assert result["total"] == len(rows) and result["no_pred"] == 0
    assert result["total_accuracy"] == pytest.approx(100 * expected_right / len(rows))
    assert result["task"]["speech"] == [expected_right, len(rows)]
    ours = score_predictions(question_set=built_set, data=json.dumps(rows, ensure_ascii=False).encode(),
                             file="run.json", model_name="half-right").result
    overall = sum(c["correct"] for c in ours["capabilities"].values())
    assert overall == expected_right
    for cap in ours["capabilities"].values():
        assert mmau_evaluation.evaluate(rows)["subcat"][cap["label"]] == [cap["correct"], cap["total"]]


def test_the_segment_is_cut_and_the_licences_are_stated(built_set, tmp_path):
    write_export(built_set, tmp_path / "out")
    rows = json.loads((tmp_path / "out" / "kmmau.json").read_text(encoding="utf-8"))
    segment = next(r for r in rows if r["capability"] == "role_profession")
    with wave.open(str(tmp_path / "out" / segment["audio_id"])) as w:
        assert w.getnframes() / w.getframerate() == pytest.approx(0.75, abs=0.02)
    licence = (tmp_path / "out" / "LICENSE.md").read_text(encoding="utf-8")
    assert "CC-BY-NC-SA-4.0" in licence and "- Seoul: CC-BY-NC-2.0" in licence and "- KSS: CC-BY-NC-SA-4.0" in licence
    csv_lines = (tmp_path / "out" / "kmmau.csv").read_text(encoding="utf-8").splitlines()
    assert csv_lines[0].startswith("id,capability,category") and len(csv_lines) == len(rows) + 1


def test_mmau_matcher_facts_that_shape_the_choices():
    choices = ["남성", "여성"]
    assert mmau_evaluation.string_match("남성", "남성", choices)
    assert not mmau_evaluation.string_match("남성", "남성입니다", choices)
    assert not mmau_evaluation.string_match("두 번째", "두번째", ["첫 번째", "두 번째", "세 번째", "네 번째"])
    assert mmau_evaluation.string_match("두 번째", "정답은 두 번째", ["첫 번째", "두 번째", "세 번째", "네 번째"])


def test_answer_positions_are_balanced_within_one_per_capability():
    class Q:
        def __init__(self, pk, capability, options, correct_index):
            self.pk, self.capability, self.options, self.correct_index = pk, capability, options, correct_index

    questions = [Q(i, "word_frequency", ["1번", "2번", "3번", "4번"], 0) for i in range(1, 23)]
    questions += [Q(100 + i, "gender", ["남성", "여성"], 1) for i in range(7)]
    arranged = arrange(questions, seed=7)
    for capability, n_options in (("word_frequency", 4), ("gender", 2)):
        positions = Counter(arranged[q.pk][1] for q in questions if q.capability == capability)
        share = sum(positions.values()) / n_options
        assert set(positions) == set(range(n_options))
        assert all(abs(count - share) <= 1 for count in positions.values())
    for q in questions:
        options, position = arranged[q.pk]
        assert options[position] == q.options[q.correct_index] and sorted(options) == sorted(q.options)
    assert arrange(questions, seed=7) == arranged  # seeded: the same file every time


def test_score_questions_command_prints_table_6_with_a_random_baseline(built_set, tmp_path, capsys):
    rows = mmau_rows(built_set)
    predictions = tmp_path / "preds.jsonl"
    predictions.write_text("".join(json.dumps({"id": r["id"], "model_prediction": r["answer"]}, ensure_ascii=False) + "\n"
                                   for r in rows), encoding="utf-8")
    call_command("score_questions", "KMMAU test", "--predictions", str(predictions), "--model", "oracle")
    out = capsys.readouterr().out
    assert "Gender" in out and "100.0" in out
    gender_line = next(line for line in out.splitlines() if "Gender" in line)
    assert gender_line.split()[-1] == "50.0"  # random guess over two options
    age_line = next(line for line in out.splitlines() if line.split()[1:2] == ["Age"])
    assert age_line.split()[-1] == "33.3"


def test_predictions_for_unknown_ids_or_without_output_are_refused(built_set):
    with pytest.raises(FileRefused, match="run.jsonl line 2: model_output: missing"):
        score_predictions(question_set=built_set, file="run.jsonl", model_name="m",
                          data=b'{"id": "kmmau-0000001", "model_output": "x"}\n{"id": "kmmau-0000002"}\n')
    with pytest.raises(FileRefused, match="not accepted questions"):
        score_predictions(question_set=built_set, file="run.jsonl", model_name="m",
                          data=b'{"id": "kmmau-9999999", "model_output": "x"}\n')


def test_predictions_are_read_by_the_tabular_reader_naming_each_bad_record():
    records = [{"id": "a", "model_prediction": "남성"}, {"id": "b", "model_output": ""},
               {"id": "a", "model_output": "x"}, {"model_output": "y"}, {"id": "c"}]
    data = ("[\n" + ",\n".join(json.dumps(r) for r in records) + "\n]").encode()  # record N on line N + 1
    with pytest.raises(FileRefused) as refused:
        read_predictions(data, file="run.json")
    assert [str(p) for p in refused.value.problems] == [
        "run.json line 4: id: 'a' repeats line 2",
        "run.json line 5: id: missing or empty",
        "run.json line 6: model_output: missing (model_output or model_prediction)",
    ]
    good = b'\xef\xbb\xbf{"id": "a", "model_prediction": "\xeb\x82\xa8\xec\x84\xb1"}\n{"id": 7, "model_output": 3}\n'
    assert read_predictions(good, file="run.json") == {"a": "남성", "7": "3"}  # JSONL, whatever the name says


def test_export_command_writes_the_files(built_set, tmp_path, capsys):
    call_command("export_questions", "KMMAU test", "--out", str(tmp_path / "cmd"))
    assert "accepted questions" in capsys.readouterr().out
    assert {p.name for p in (tmp_path / "cmd").iterdir()} == {"kmmau.json", "kmmau.csv", "LICENSE.md", "audios"}
