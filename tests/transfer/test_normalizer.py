"""The deterministic normalizer on a table of cases (Table 4 of seed 000 among them), validation, the
agent path for a context-dependent span, and the normalize_text command."""

from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from apps.consultations import rulebook_files
from apps.consultations.rulebooks import get_version, load_rulebooks
from apps.transfer.normalization.services import normalize_text
from apps.transfer.normalizer import MissingTables, Normalizer, Tables, normalizer_for, validate

CASES = [
    # consonant labels
    ('ㄱ. 사과', '기역. 사과'),
    ('ㄴ. 배 ㄷ. 감', '니은. 배 디귿. 감'),
    ('ㄹ) 포도', '리을. 포도'),
    # numbers: fractions, large numbers, decimals
    ('2/5', '오분의 이'),
    ('1/2', '이분의 일'),
    ('12,345', '만 이천삼백사십오'),
    ('1,000,000', '백만'),
    ('123456789', '일억 이천삼백사십오만 육천칠백팔십구'),
    ('10000', '만'),
    ('3.14', '삼 점 일사'),
    ('0.5', '영 점 오'),
    # counters (what num2words, g2pk, nemo and kornorm get wrong among them)
    ('사과 3개', '사과 세 개'),
    ('3분', '삼 분'),
    ('20살', '스무 살'),
    ('15층', '십오 층'),
    ('3명', '세 명'),
    ('3시간', '세 시간'),
    ('20개', '스무 개'),
    ('20번째', '스무 번째'),
    ('1번째', '첫 번째'),
    ('21개', '스물한 개'),
    ('1,234명', '천이백서른네 명'),
    ('125마리', '백스물다섯 마리'),
    ('3개월', '삼 개월'),
    ('1.5배', '일 점 오 배'),
    ('2배', '두 배'),
    # years, dates, times
    ('1901년 3월 7일', '천구백일 년 삼월 칠 일'),
    ('6월', '유월'),
    ('10월', '시월'),
    ('2024-03-07', '이천이십사 년 삼월 칠 일'),
    ('3시 30분', '세 시 삼십 분'),
    ('오후 3:30', '오후 세 시 삼십 분'),
    ('오전 10:05', '오전 열 시 오 분'),
    # currency before and after the number
    ('$32', '삼십이 달러'),
    ('₩15,000', '만 오천 원'),
    ('3,000원', '삼천 원'),
    ('€5', '오 유로'),
    # percentages
    ('6.5%', '육 점 오 퍼센트'),
    ('50%', '오십 퍼센트'),
    # units, / as 퍼 only inside a unit
    ('5kg', '오 킬로그램'),
    ('g/mL', '그램 퍼 밀리리터'),
    ('60km/h', '육십 킬로미터 퍼 아워'),
    ('9.8 m/s', '구 점 팔 미터 퍼 세컨드'),
    # ranges
    ('3~5개', '세 개에서 다섯 개'),
    ('10~20', '십에서 이십'),
    # negatives and temperatures
    ('-5', '마이너스 오'),
    ('-5°C', '영하 오 도'),
    ('기온 -5도', '기온 영하 오 도'),  # a temperature in 도 (issue 21)
    ('영하 -5도', '영하 오 도'),
    # Unicode compatibility forms (issue 21): units from the CJK compatibility block, super- and subscripts
    ('10㎖', '십 밀리리터'),
    ('5㎞', '오 킬로미터'),
    ('10㎠', '십 제곱센티미터'),
    ('3㎥', '삼 세제곱미터'),
    ('5㎧', '오 미터 퍼 세컨드'),
    ('10³', '십의 삼승'),
    ('2⁻³', '이의 마이너스 삼승'),
    ('x²', '엑스의 이승'),
    ('10cm²', '십 제곱센티미터'),
    ('CO₂', '씨오투'),
    ('H₂O', '에이치투오'),
    # a decade that names people is an age group (rulebook v3's age_decades)
    ('20대 남성', '이십 대 남성'),
    ('30대 초반', '삼십 대 초반'),
    ('36.5℃', '삼십육 점 오 도'),
    ('98.6°F', '화씨 구십팔 점 육 도'),
    # exponents and scientific notation
    ('10^-5', '십의 마이너스 오승'),
    ('$10^{-5}$', '십의 마이너스 오승'),
    ('6.02e23', '육 점 영이 곱하기 십의 이십삼승'),
    ('x^2', '엑스의 이승'),
    # Greek letters and operators
    ('α + β', '알파 더하기 베타'),
    ('3 + 4 = 7', '삼 더하기 사는 칠'),
    ('6 × 7', '육 곱하기 칠'),
    ('8 ÷ 2', '팔 나누기 이'),
    ('π', '파이'),
    # acronyms
    ('ROI', '알오아이'),
    ('USA와', '유에스에이와'),
    # chemical formulas
    ('NaOH', '엔에이오에이치'),
    ('H2O', '에이치투오'),
    ('CO2', '씨오투'),
    ('NaCl', '엔에이씨엘'),
    # URLs, e-mail addresses, file extensions
    ('www.example.com', '더블유더블유더블유 점 example 점 컴'),
    ('naver.com', 'naver 점 컴'),
    ('a.b@c.com', '에이 점 비 골뱅이 씨 점 컴'),
    ('.json', '점 제이슨'),
    ('data.csv 파일', 'data 점 씨에스브이 파일'),
    # punctuation
    ('“예”', '예'),
    ('"아니요"', '아니요'),
    ('그렇다… 아니다', '그렇다, 아니다'),
    ('그렇다—아니다', '그렇다, 아니다'),
    ('(예) 사과', '예 사과'),
    # kept English names and terminology
    ('Minnie가 왔다', 'Minnie가 왔다'),
    ('Hemiptera 목', 'Hemiptera 목'),
    ('ATP는 에너지다', 'ATP는 에너지다'),
]


NEWEST = settings.RULEBOOKS_DIR / "ko" / "normalization" / "v3.yaml"


@pytest.fixture(scope="module")
def engine():
    """The tables exactly as the published file holds them (load_rulebooks stores the same data)."""
    spec = rulebook_files.parse_file(NEWEST)
    return Normalizer(Tables([(rule.id, rule.data) for rule in spec.rules]))


def test_the_table_has_at_least_sixty_cases():
    assert len(CASES) >= 60


@pytest.mark.parametrize(("written", "spoken"), CASES)
def test_reading(engine, written, spoken):
    result = engine.normalize(written)
    assert result.text == spoken
    assert not result.pending
    assert validate(result.text, result.preserved) == []


def test_rules_fired_name_the_rules_whose_tables_read_the_text(engine):
    result = engine.normalize("12,345명이 $32를 냈고 6.5%가 g/mL로 ROI를 봤다")
    assert result.text == "만 이천삼백마흔다섯 명이 삼십이 달러를 냈고 육 점 오 퍼센트가 그램 퍼 밀리리터로 알오아이를 봤다"
    assert set(result.rules_fired) == {"nm-counter-numerals", "nm-currency", "nm-numbers", "nm-percent", "nm-units",
                                       "nm-acronyms"}
    assert result.readings[0] == {"span": "12,345명", "reading": "만 이천삼백마흔다섯 명", "rules": ["nm-counter-numerals"]}
    assert {r["span"] for r in result.readings} >= {"12,345명", "$32", "6.5%", "g/mL", "ROI"}


def test_terms_kept_by_the_hypertranslation_are_preserved(engine):
    assert engine.normalize("PCR 검사").text == "피씨알 검사"
    result = engine.normalize("PCR 검사", preserve=["PCR"])
    assert result.text == "PCR 검사"
    assert validate(result.text, result.preserved) == []


def test_validation_catches_what_is_left():
    assert validate("사과 3개") == ["digit left: 3개"]
    assert validate("the 사과") == ["Latin letters left: the"]
    assert validate("사과 # 배") == ["symbol left: #"]
    assert validate("Minnie가 왔다", ["Minnie"]) == []
    assert validate("세 개, 네 개. 맞나요?") == []


@pytest.mark.parametrize(("written", "span", "kind"), [
    ("차 3대", "3대", "counter 대"),          # 세 대 for cars, 삼 대 for a ratio: what is counted decides
    ("25대 남성", "25대", "counter 대"),     # not a decade: left for the agent
    ("종이 3장", "3장", "counter 장"),        # 세 장 of sheets
    ("3장을 읽어라", "3장", "counter 장"),    # 삼 장, a chapter
    ("1st place", "1st", "ordinal"),         # 일 등 in a ranking
    ("the 2nd time", "2nd", "ordinal"),      # 두 번째
])
def test_counters_and_ordinals_that_depend_on_what_is_meant_go_to_the_agent(engine, written, span, kind):
    result = engine.normalize(written)
    assert [(p.span, p.kind) for p in result.pending] == [(span, kind)]
    assert span in result.text  # left as written for the agent, never half read ("일 st")


def test_version_2_still_reads_its_own_way():
    # A run pinned to v2 keeps v2's tables: 대 native, no ordinal pattern, no age groups.
    spec = rulebook_files.parse_file(settings.RULEBOOKS_DIR / "ko" / "normalization" / "v2.yaml")
    v2 = Normalizer(Tables([(rule.id, rule.data) for rule in spec.rules]))
    assert v2.normalize("차 3대").text == "차 세 대"
    assert v2.normalize("20대 남성").text == "스무 대 남성"


def test_context_dependent_spans_are_left_for_the_agent(engine):
    result = engine.normalize("하루에 3번 먹고 3:2로 이겼다")
    assert [(p.span, p.kind) for p in result.pending] == [("3번", "counter 번"), ("3:2", "colon_between_numbers")]
    assert "nm-context-dependent" in result.rules_fired
    assert validate(result.text)  # not speakable until the agent reads them


@pytest.mark.django_db
def test_the_published_version_drives_the_engine(engine):
    load_rulebooks()
    loaded = normalizer_for(get_version("ko-normalization", 2))
    assert loaded.normalize("15층 20번째").text == engine.normalize("15층 20번째").text == "십오 층 스무 번째"
    with pytest.raises(MissingTables, match="no table"):
        normalizer_for(get_version("ko-normalization", 1))  # version 1 has no tables: the engine says so


@pytest.mark.django_db
def test_the_agent_reads_a_context_dependent_span(fake_llm):
    load_rulebooks()
    fake_llm.always({"readings": [{"index": 1, "reading": "세 번"}]})
    outcome = normalize_text("이 약은 하루에 3번, 5mg씩 먹는다")
    assert outcome.text == "이 약은 하루에 세 번, 오 밀리그램씩 먹는다"
    assert outcome.status == "ok" and outcome.used_agent
    assert outcome.agent_call is not None and outcome.agent_call.role == "normalizer"
    sent = fake_llm.requests[0]["body"]
    assert "3번" in str(sent) and "nm-context-dependent" in str(sent)


@pytest.mark.django_db
def test_an_agent_reading_that_fails_validation_needs_attention(fake_llm):
    load_rulebooks()
    fake_llm.always({"readings": [{"index": 1, "reading": "3 번"}]})
    outcome = normalize_text("하루에 3번 먹는다")
    assert outcome.status == "needs_attention"
    assert "not speakable" in outcome.attention_reason and "digit left: 3" in outcome.attention_reason


@pytest.mark.django_db
def test_normalize_text_command_prints_the_reading_then_the_rules():
    load_rulebooks()
    out = StringIO()
    call_command("normalize_text", "사과 3개와 $32", "--no-agent", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "사과 세 개와 삼십이 달러"
    assert any("nm-counter-numerals" in line for line in lines[1:])
    assert any("nm-currency" in line for line in lines[1:])


@pytest.mark.parametrize(("span", "kind", "readings"), [
    ("3번", "counter 번", ["세 번", "삼 번"]),
    ("20대", "counter 대", ["스무 대", "이십 대"]),
    ("1st", "ordinal", ["첫 번째", "일 등", "일 위"]),
    ("3:2", "colon_between_numbers", ["삼 대 이"]),
    ("1-2", "hyphen_between_numbers", ["일에서 이", "일 대 이", "일 빼기 이", "일 다시 이", "일 이"]),
    ("010-1234-5678", "hyphen_between_numbers", ["영일영 일이삼사 오육칠팔", "공일공 일이삼사 오육칠팔"]),
    ("<", "inequality", []),
])
def test_a_context_dependent_span_lists_its_possible_readings(engine, span, kind, readings):
    # What the ASR check accepts as the text's reading of a span heard in digits (apps.speech).
    assert engine.possible_readings(span, kind) == readings
