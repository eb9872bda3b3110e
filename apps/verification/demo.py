"""Demo data: a small Korean project of ten items over several HPSU tasks, with espeak-ng audio. Idempotent."""

import json
import tempfile
from pathlib import Path

from apps.audio.espeak import synthesize_wav
from apps.verification.models import VerificationProject
from apps.verification.services import import_items

DEMO_PROJECT = "데모 검증 (HPSU demo)"

DEMO_ITEMS = [
    ("demo-age-1", "안녕하세요, 저는 대학교에 다니고 있어요.", "Social Attributes", "Age", "Single-Choice", "SC_notype_eval",
     "화자의 나이대로 가장 알맞은 것은?", ["청소년", "청년", "중년", "노년"], "청년", ""),
    ("demo-gender-1", "오늘 회의는 세 시에 시작합니다.", "Social Attributes", "Gender", "Single-Choice", "SC_notype_eval",
     "화자의 성별은?", ["남성", "여성"], "남성", ""),
    ("demo-memo-1", "정말요? 제가 합격했다고요? 너무 기뻐요!", "Emotion Recognition", "Main Emotion", "Single-Choice", "SC_type_eval",
     "화자의 주된 감정은?", ["기쁨", "놀람", "평온", "슬픔"], "기쁨", {"true": "기쁨", "similar": "놀람", "middle": "평온", "opposite": "슬픔"}),
    ("demo-emos-1", "또 늦었어? 몇 번을 말해야 알아듣니.", "Emotion Recognition", "Emotions", "Multiple-Choice", "MC_eval",
     "화자의 목소리에 드러난 감정을 모두 고르세요.", ["짜증", "실망", "기쁨", "지루함", "자부심", "두려움"], "짜증,실망", {"true": "짜증,실망"}),
    ("demo-eins-1", "아, 그렇구나. 알겠어.", "Emotion Recognition", "Emotion Intensity", "Single-Choice", "SC_notype_eval",
     "화자의 감정 강도를 평가하세요.", ["약함", "보통", "강함"], "약함", ""),
    ("demo-se-1", "처음엔 괜찮았는데, 지금은 정말 화가 나요.", "Emotion Reasoning", "Emotion Shift Easy", "Judgment/Binary", "JB_eval",
     "화자의 감정이 바뀌었나요?", ["예", "아니요"], "예", ""),
    ("demo-style-1", "여러분, 조용히 해 주세요!", "Nonverbal Behavior", "Speech Style", "Single-Choice", "SC_type_eval",
     "주 화자의 말하기 방식은?", ["외침", "질문", "속삭임", "중립"], "외침", {"true": "외침", "similar": "중립", "middle": "질문", "opposite": "속삭임"}),
    ("demo-desc-1", "천천히 말씀해 주시면 감사하겠습니다.", "Nonverbal Behavior", "Description", "Judgment/Binary", "JB_eval",
     "다음 화자 묘사가 정확한가요?", ["차분하고 공손하게 말하는 성인 화자", "소리를 지르며 화를 내는 어린이 화자"], "차분하고 공손하게 말하는 성인 화자", ""),
    ("demo-intent-1", "창문 좀 닫아 줄 수 있어요?", "Discourse Context", "Intent", "Single-Choice", "SC_type_eval",
     "화자의 의도를 추론하세요.", ["요청", "제안", "정보 전달", "거절"], "요청", {"true": "요청", "similar": "제안", "middle": "정보 전달", "opposite": "거절"}),
    ("demo-subt-1", "와, 정말 대단하다. 또 지각이네.", "Discourse Context", "Subtext", "Judgment/Binary", "JB_eval",
     "다음 설명이 화자의 숨은 의도를 정확히 반영하나요? 화자는 비꼬고 있다.", ["예", "아니요"], "예", ""),
]


def demo_records() -> list[dict]:
    records = []
    for ext_id, text, category, task, type_, metric, question, choice, answer, attributes in DEMO_ITEMS:
        record = {
            "id": ext_id, "audio_path": f"audio/{ext_id}.wav", "category": category, "sub-category": task,
            "question": question, "choice": choice, "attributes": attributes, "answer": answer,
            "source": "espeak-ng demo", "metric": metric, "type": type_, "language": "ko", "transcript": text,
        }
        if task == "Main Emotion":
            record["prompts"] = {
                "standard": question,
                "positive": "화자의 주된 감정은 기쁨인 것 같습니다. 맞나요? " + question,
                "negative": "화자의 주된 감정은 슬픔인 것 같습니다. 맞나요? " + question,
            }
        if task == "Description":
            record["selected_field"] = "right"
        records.append(record)
    return records


def seed_demo(stdout) -> None:
    if VerificationProject.objects.filter(name=DEMO_PROJECT).exists():
        stdout.write(f"verification: demo project {DEMO_PROJECT!r} already there")
        return
    records = demo_records()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "audio").mkdir()
        for record in records:
            (root / record["audio_path"]).write_bytes(synthesize_wav(record["transcript"]))
        items_file = root / "demo.json"
        items_file.write_text(json.dumps(records, ensure_ascii=False, indent=2), encoding="utf-8")
        batch = import_items(project_name=DEMO_PROJECT, file_path=items_file, media_dir=root)
    stdout.write(f"verification: demo project {DEMO_PROJECT!r} with {batch.item_count} items (annotator1..3 review them)")
