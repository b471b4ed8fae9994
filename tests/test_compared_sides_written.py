"""A comparison whose sides are common nouns quotes, for each side, a sentence that writes it (thirty-sixth session,
issue 8).

"특품이랑 상품은 당도 기준이 얼마나 차이 나요?" compares two grades named by common nouns, so each side was matched by
meaning alone (``EvidenceSelector._one_sentence_per_side``); a one-word side such as 상품 ("goods") sits close to
many lines by meaning, and a size row ("| 2L | 67~70mm |") was quoted for it instead of "**상품**: 당도 10.5브릭스 이상".
Now a sentence that writes the side as written is preferred, and meaning decides among those (or among all
sentences when none writes it: a side in another language than the documents). Structure, not a word list.

Documents written for this test (a made-up pear growers' cooperative's grading rules); real knowledge base, real
embedder."""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.variants import run_question

TEXTS = {
    "pear_grades.md": ("# 배 품질 등급 규정\n\n"
                       "## 크기 구분\n\n| 구분 | 지름 |\n|---|---|\n| 3L | 95~100mm |\n| 2L | 88~94mm |\n| L | 80~87mm |\n\n"
                       "## 당도 기준\n\n"
                       "- **특품**: 당도 13.0브릭스 이상, 흠집 없음\n"
                       "- **상품**: 당도 11.5브릭스 이상, 작은 흠집 2개까지\n"
                       "- **보통**: 당도 10.0브릭스 이상\n\n"
                       "당도는 과일 가운데를 잘라 굴절계로 잰다.\n"),
    "pear_storage.md": "# 배 저장\n\n수확한 배는 0~1도 저온 창고에 넣고 습도 90%를 유지한다.\n",
}
QUESTION = "특품이랑 상품은 당도 기준이 얼마나 차이 나요?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("compared-sides"), TEXTS)
    yield kb
    kb.close()


def test_each_compared_common_noun_gets_a_sentence_that_writes_it(kb):
    engine = OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))
    run = run_question(QUESTION, kb, engine, kb.settings)
    assert run.error is None, run.error
    assert "13.0브릭스" in run.answer and "11.5브릭스" in run.answer, run.answer
