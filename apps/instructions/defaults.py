"""The instructions a test, project or set starts with, until its admin writes their own."""

# KOMOS's protocol (seed 001 §3): overall quality on a 1-5 scale, no transcript, and "not to penalize speech
# merely for being formal or informal".
MOS = (
    "한국어 음성을 한 번에 하나씩 듣게 됩니다. 각 음성의 전반적인 품질을 1점(아주 나쁨)에서 5점(아주 좋음)으로 평가해 주세요.\n"
    "음성의 대본은 보여 드리지 않습니다. 들리는 소리와 말의 품질만으로 판단해 주세요.\n"
    "격식체나 비격식체라는 이유만으로 점수를 낮추지 마세요.\n"
    "조용한 곳에서 헤드폰을 사용해 주세요. 음성을 끝까지 들은 뒤에 점수를 고를 수 있고, 다시 들어도 됩니다.",
    "You will hear Korean speech clips, one at a time. Rate the overall quality of each clip from 1 (bad) to 5 (excellent).\n"
    "You are not shown a transcript: judge the quality of the sound and the speech only.\n"
    "Do not penalise speech for being formal or informal.\n"
    "Use headphones, in a quiet place. The scores unlock once the clip has played to its end; you may replay it.",
)

# HPSU (seed 003): each annotator reviews independently; an item is kept only with unanimous approval.
VERIFICATION = (
    "각 문항의 음성을 듣고 질문, 선택지, 정답이 음성과 맞는지 확인해 주세요. 정답이 음성으로 분명히 정해지면 승인하고, "
    "그렇지 않으면 이유를 하나 이상 골라 반려해 주세요. 다른 검수자의 판단은 보이지 않습니다. 혼자서 판단해 주세요.",
    "Listen to each item's audio and check that its question, options and answer fit the audio. Approve when the "
    "audio decides the answer clearly; otherwise reject, choosing one or more reasons. Other reviewers' decisions "
    "stay hidden: decide on your own.",
)

# KMMAU (seed 000 §3.2): one correct option, distractors from the same answer space, decided by the audio.
KMMAU = (
    "음성을 끝까지 들은 뒤에 질문을 쓰거나 검토해 주세요. 정답은 하나이고 음성만으로 정해져야 하며, 오답 선택지는 "
    "정답과 같은 종류(다른 나이, 가까운 숫자, 다른 위치)에서 골라 주세요.",
    "Listen to the clip to its end before you write or review a question. Exactly one option is correct and the audio "
    "alone decides it; the other options come from the same answer space (other ages, nearby counts, other positions).",
)
