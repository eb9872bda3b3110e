"""Rule-based questions: from metadata (option counts, distractor spaces) and from transcripts (word
frequency counting lemmas, word order), and the skipped ambiguous candidates."""

import random

import pytest

from apps.authoring.capabilities import Capability
from apps.authoring.generation import ClipFacts, Skip, frequency_question, nearby_counts, order_question
from apps.authoring.models import Question
from apps.authoring.morphology import analyse
from apps.authoring.services import generate_rule_questions

# Sentences written for this test with their known counts (nouns; particles attach to the lemma).
FREQUENCY_CASES = [
    ("학교에서 공부하고 학교를 나왔다.", "학교", 2),
    ("사과를 먹고 사과가 좋아서 또 사과를 샀다.", "사과", 3),
    ("오늘 회의는 세 시에 시작합니다.", "회의", 1),
    ("친구와 친구의 동생이 친구 집에 왔어요.", "친구", 3),
    ("도서관에 가서 도서관 앞 의자에 앉았다.", "도서관", 2),
    ("버스를 놓쳐서 다음 버스를 기다렸다.", "버스", 2),
    ("커피는 싫고 차는 좋아요.", "커피", 1),
    ("선생님께서 선생님의 책을 가져오셨다.", "선생님", 2),
    ("시장에서 생선을 사고 시장 입구에서 과일도 샀다.", "시장", 2),
    ("비가 와서 우산을 쓰고 우산을 접었다가 다시 우산을 폈다.", "우산", 3),
    ("강아지가 강아지를 보고 짖었다.", "강아지", 2),
]


def lemma_count(text: str, lemma: str) -> int | None:
    """How many times `lemma` is said, or None when the analysis is ambiguous about it (as generation reads it)."""
    analysis = analyse(text)
    return None if analysis.ambiguity(lemma) else analysis.counts[lemma]


@pytest.mark.parametrize("sentence, word, count", FREQUENCY_CASES)
def test_word_frequency_counts_lemmas(sentence, word, count):
    assert lemma_count(sentence, word) == count


def test_a_word_that_is_also_part_of_a_compound_is_ambiguous():
    sentence = "학교에서 공부하고 학교를 나왔다. 초등학교는 멀다."
    assert lemma_count(sentence, "학교") is None
    assert "compound" in analyse(sentence).ambiguity("학교")


def test_a_noun_that_kiwi_split_out_of_a_written_compound_is_ambiguous():
    # Kiwi's best reading splits 학교생활 into 학교 + 생활 (two nouns in one written word), so no longer noun
    # contains 학교 and only the written word shows the compound.
    sentence = "학교에서 공부했다. 학교생활이 즐겁다."
    assert [n.lemma for n in analyse("학교생활이 즐겁다.").nouns] == ["학교", "생활"]
    assert lemma_count(sentence, "학교") is None
    assert "학교생활이" in analyse(sentence).ambiguity("학교")
    assert lemma_count("학교에서 공부했다. 학교를 나왔다.", "학교") == 2


def test_the_ambiguous_candidate_is_skipped_and_counted_never_emitted():
    analysis = analyse("학교에서 공부하고 학교를 나왔다. 초등학교는 멀다.")
    results = frequency_question(ClipFacts(clip_id=1), analysis, random.Random(0))
    skips = [r for r in results if isinstance(r, Skip)]
    made = [r for r in results if not isinstance(r, Skip)]
    assert [s.reason for s in skips] == ["compound"]  # 학교 (said most) is skipped
    assert all(m.provenance["params"]["word"] != "학교" for m in made)


def test_a_frequency_question_has_four_nearby_counts_with_one_right():
    analysis = analyse("사과를 먹고 사과가 좋아서 또 사과를 샀다.")
    [candidate] = frequency_question(ClipFacts(clip_id=1), analysis, random.Random(3))
    assert candidate.options[candidate.correct_index] == "3번"
    counts = sorted(int(o.removesuffix("번")) for o in candidate.options)
    assert counts == list(range(counts[0], counts[0] + 4)) and counts[0] >= 1
    assert "'사과'라는 단어" in candidate.text


def test_nearby_count_windows_vary_so_the_answer_is_not_always_in_the_middle():
    windows = {tuple(nearby_counts(5, random.Random(seed))) for seed in range(40)}
    assert windows == {(2, 3, 4, 5), (3, 4, 5, 6), (4, 5, 6, 7), (5, 6, 7, 8)}
    assert all(w[0] >= 1 for w in (nearby_counts(1, random.Random(s)) for s in range(10)))


def test_word_order_asks_which_word_comes_first_last_or_after():
    analysis = analyse("아침에 공원에서 친구를 만나 도서관에 갔다가 시장에 들렀다.")
    order = ["아침", "공원", "친구", "도서관", "시장"]
    kinds = set()
    for seed in range(30):
        candidate = order_question(ClipFacts(clip_id=1), analysis, random.Random(seed))
        params = candidate.provenance["params"]
        kinds.add(params["kind"])
        answer = candidate.options[candidate.correct_index]
        assert len(candidate.options) == 4 and len(set(candidate.options)) == 4
        assert set(candidate.options) <= set(order)
        if params["kind"] == "first":
            assert answer == min(candidate.options, key=order.index)
        elif params["kind"] == "last":
            assert answer == max(candidate.options, key=order.index)
        else:
            assert answer == order[order.index(params["given"]) + 1]
            assert params["given"] not in candidate.options
    assert kinds == {"first", "last", "after"}


def test_word_order_skips_a_clip_with_fewer_than_four_words():
    result = order_question(ClipFacts(clip_id=1), analyse("사과를 먹었다."), random.Random(0))
    assert isinstance(result, Skip) and "fewer than four" in result.reason


def test_metadata_questions_have_the_right_option_counts_and_answer_spaces(question_set, seoul_corpus):
    report = generate_rule_questions(question_set=question_set, corpus=seoul_corpus,
                                     capabilities=["gender", "age", "num_speakers"])
    assert report["gender"]["made"] == 4 and report["age"]["made"] == 4 and report["num_speakers"]["made"] == 4
    for q in Question.objects.filter(question_set=question_set).select_related("clip"):
        if q.capability == Capability.GENDER:
            assert sorted(q.options) == ["남성", "여성"]
            assert q.answer == {"male": "남성", "female": "여성"}[q.clip.gender]
        elif q.capability == Capability.AGE:
            assert sorted(q.options) == sorted(["청년", "중년", "노년"])
            assert q.answer == {"young": "청년", "middle": "중년", "senior": "노년"}[q.clip.age_group]
        else:
            counts = sorted(int(o.removesuffix("명")) for o in q.options)
            assert len(counts) == 4 and counts == list(range(counts[0], counts[0] + 4))
            assert q.answer == f"{q.clip.num_speakers}명"
        assert q.status == "accepted" and q.provenance["rule"].startswith("metadata.")


def test_metadata_questions_come_only_from_clips_whose_metadata_holds_the_answer(question_set, seoul_corpus):
    report = generate_rule_questions(question_set=question_set, corpus=seoul_corpus, capabilities=["gender"])
    assert report["gender"]["made"] == 4
    again = generate_rule_questions(question_set=question_set, corpus=seoul_corpus, capabilities=["gender"])
    assert again["gender"] == {"made": 0, "already": 4, "skipped": {}}  # re-running adds nothing twice
    assert Question.objects.filter(question_set=question_set, capability="gender").count() == 4


def test_a_one_speaker_corpus_yields_no_metadata_question_with_a_constant_answer(question_set, kss_corpus):
    # KSS has one female speaker: every gender question would answer 여성 and every speaker count 1명
    # (issue 21), so a model could score without listening.
    report = generate_rule_questions(question_set=question_set, corpus=kss_corpus)
    assert report["age"] == {"made": 0, "already": 0, "skipped": {"no age group in the metadata": 3}}
    assert report["gender"] == {"made": 0, "already": 0,
                                "skipped": {"the same answer for every clip of the corpus (female)": 3}}
    assert report["num_speakers"]["skipped"] == {"the same answer for every clip of the corpus (1)": 3}
    assert not Question.objects.filter(question_set=question_set, capability__in=["gender", "num_speakers"]).exists()


def test_generate_questions_command_prints_counts_and_skips(question_set, kss_corpus, capsys):
    from django.core.management import call_command

    call_command("generate_questions", "--corpus", "KSS", "--set", "KMMAU test")
    out = capsys.readouterr().out
    assert "gender: 0 made, 0 already there; skipped 3 (the same answer for every clip of the corpus (female): 3)" in out
    assert "age: 0 made, 0 already there; skipped 3 (no age group in the metadata: 3)" in out
    assert "word_frequency:" in out and "word_order:" in out
