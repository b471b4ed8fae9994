"""A "how many" that counts a word no unit class knows ("몇 럭스", "how many lux", "多少勒克斯") is answered by a number
of that word, where the documents write one (thirty-sixth session, issue 8).

The unit lists know days, people, money, percent …; "몇 럭스" counts lux, which none of them holds, so any value was
read as an answer: a table row "| 온실 조명 밝기 측정 | 3일마다 … |" (a number of days, on the topic by its words)
outranked the sentence that states "12,000럭스" and the answer concluded with the row. Now the question's own counted
word is kept, and when the documents write it after a number, a value in another unit is only a weak answer. Where
no document writes it ("多少时间" asks a duration, and no text says "3时间"), nothing changes. Structure, not a word
list: the counted word is read from the question, the documents decide whether it is a unit.

Documents written for this test (a made-up greenhouse's lighting manual); real knowledge base, real embedder."""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.answertype import asked_type
from rag.engines.offline.values import states_count_of
from rag.variants import run_question

TEXTS = {
    "greenhouse_lighting.md": (
        "# 푸른들 온실 조명 관리 지침\n\n"
        "## 점검 주기\n\n"
        "| 작업 | 주기 | 담당 |\n|---|---|---|\n"
        "| 온실 조명 밝기 측정 | 3일마다 (육묘 기간에는 매일) | 시설관리팀 |\n"
        "| 환기창 점검 | 7일마다 | 당번 |\n\n"
        "## 육묘실 조명 맞추기\n\n"
        "1. 조도계를 작물 잎 높이에 둔다.\n"
        "2. 조명 밝기는 12,000럭스를 기준으로 맞추고, 위아래 500럭스 안에 들어야 한다.\n"
        "3. 조명은 해가 진 뒤 네 시간 동안 켠다.\n"),
    "greenhouse_water.md": ("# 푸른들 온실 물 관리\n\n관수는 하루 두 번, 오전 7시와 오후 5시에 한다. "
                            "물탱크는 30일마다 청소한다.\n"),
}
QUESTION = "육묘실 온실 조명 밝기는 몇 럭스예요?"


def test_the_counted_word_is_kept_and_a_number_of_it_is_recognised():
    asked = asked_type(QUESTION)
    assert asked.counted == "럭스", asked
    assert states_count_of(asked.counted, "조명 밝기는 12,000럭스를 기준으로 맞춘다.")
    assert not states_count_of(asked.counted, "| 온실 조명 밝기 측정 | 3일마다 |")
    assert asked_type("How many lux should the nursery lights give?").counted == "lux"
    assert states_count_of(asked_type("育苗室的灯要调到多少勒克斯？").counted, "育苗室灯光以 12000 勒克斯为准。")
    # a known unit class keeps its own reading; so does a question word English does not count with
    assert asked_type("몇 일 걸려요?").counted == "" and asked_type("How many are there?").counted == ""


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("counted-units"), TEXTS)
    yield kb
    kb.close()


def test_a_number_of_the_counted_word_concludes_over_a_row_in_days(kb):
    engine = OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))
    run = run_question(QUESTION, kb, engine, kb.settings)
    assert run.error is None, run.error
    conclusion = run.answer.split("\n")[0]
    assert "12,000럭스" in conclusion, run.answer
    assert "3일마다" not in conclusion, run.answer
