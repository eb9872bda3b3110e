"""One Kiwi per process, shared by every thread (kiwipiepy documents a Kiwi object as thread-safe since 0.22)."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import kiwipiepy

from apps.core import korean

SENTENCES = ["오늘은 날씨가 맑습니다.", "학교에서 친구를 만났어요.", "사과 세 개와 배 두 개를 샀다.",
             "초등학교는 아버지가방에 들어가신다.", "회의는 세 시에 시작합니다."]


def _forms(sentence: str) -> list[tuple[str, str, int, int]]:
    return [(t.form, t.tag, t.start, t.len) for t in korean.kiwi().tokenize(sentence)]


def test_every_thread_gets_the_one_analyser():
    with ThreadPoolExecutor(max_workers=4) as pool:
        seen = set(pool.map(lambda _: id(korean.kiwi()), range(8)))
    assert seen == {id(korean.kiwi())}


def test_threads_tokenizing_at_once_read_as_one_thread_does():
    alone = {s: _forms(s) for s in SENTENCES}
    with ThreadPoolExecutor(max_workers=6) as pool:
        together = list(pool.map(lambda s: (s, _forms(s)), SENTENCES * 12))
    assert all(forms == alone[s] for s, forms in together)


def test_two_threads_asking_first_load_the_model_once(monkeypatch):
    made = []

    class Counted:
        def __init__(self):
            time.sleep(0.2)  # as a model load would, so the second thread asks while the first loads
            made.append(self)

    monkeypatch.setattr(korean, "_kiwi", None)
    monkeypatch.setattr(kiwipiepy, "Kiwi", Counted)
    start = threading.Barrier(4)

    def ask(_):
        start.wait()
        return korean.kiwi()

    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(ask, range(4)))
    assert len(made) == 1 and all(g is made[0] for g in got)
