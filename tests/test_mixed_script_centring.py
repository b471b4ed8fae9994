"""A sentence that writes some of its letters in the question's script is centred partly as the question's language
(thirtieth session, issue 8).

The bundled embedder's cosine is read as a z-score within the sentence's language (``sentences.LanguageStats``):
English, Korean and Chinese sentences sit at different distances from any question. A Korean sentence that names a
company in Chinese characters ("2024년 11월 — 칭다오 海岬酒业과 중국 유통 계약 체결") sits closer to a Chinese question than
the Korean sentences it was centred with, by those characters and not by what it says; so does a Chinese sentence
that writes one name in Hangul, which counted as Korean. Such sentences won Chinese questions they do not answer
(dev sets G, H, N: a franchise or distribution agreement quoted for "when did the first store open"). Each sentence of
another language than the question's is now centred by the share of its letters in the question's script
(``LanguageStats.centre_mixed``); a sentence in one script, and every sentence of the question's own language, is
centred as before.

Documents written for this test (a bakery's history in Korean, its franchise agreement in Chinese); real knowledge
base, real embedder, no mocks.
"""
from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from rag.engines.offline import OfflineEngine
from rag.sentences import LanguageStats
from rag.textutil import script_shares
from rag.variants import run_question

NAME_LINE = "2023년 3월 — 쑤저우 禾麦餐饮과 중국 가맹 계약 체결"
ANSWER_LINE = "2019년 9월 — 세종 공장 안에 냉동 생지 생산 라인 가동"
TEXTS = {
    "company_history_ko.md": (
        "# 한울베이커리 연혁\n\n"
        "주식회사 한울베이커리(Hanul Bakery, 중국어 이름 寒蔚烘焙)는 대전에 본사를 둔 베이커리 회사다.\n\n"
        "- 2016년 4월 — 대전 둔산동에 첫 직영 매장 개점\n"
        f"- {ANSWER_LINE}\n"
        f"- {NAME_LINE}\n"
        "- 2024년 8월 — 온라인 직영몰 오픈\n"),
    "zh_franchise_agreement.txt": (
        "寒蔚烘焙苏州特许经营协议要点\n\n"
        "2023年3月12日，苏州禾麦餐饮管理有限公司（以下简称“禾麦”）与韩国烘焙企业 Hanul Bakery（한울베이커리，中文名"
        "“寒蔚烘焙”）在苏州签署特许经营协议。\n"
        "协议期限为五年，禾麦每年至少新开两家门店。\n"),
}
QUESTION = "寒蔚烘焙的冷冻面团生产线是哪年几月开始运转的？"

# a Chinese question's cosines: Chinese sentences sit higher than Korean ones (as the bundled embedder puts them)
STATS = LanguageStats(mean={"en": 0.72, "ko": 0.70, "zh": 0.85}, std={"en": 0.04, "ko": 0.04, "zh": 0.04},
                      counts={"en": 50, "ko": 50, "zh": 50})


def test_script_shares_weigh_a_character_as_letters():
    shares = script_shares(NAME_LINE)
    assert set(shares) == {"ko", "zh"} and 0.15 < shares["zh"] < 0.35
    assert script_shares("Hanul Bakery") == {"en": 1.0}
    assert script_shares("2023 — 12") == {}


def test_a_korean_sentence_naming_a_company_in_chinese_no_longer_outranks_the_answer_by_those_characters():
    sims = np.asarray([0.80, 0.78], dtype=np.float32)  # the name line a little closer, by its four characters
    texts = [NAME_LINE, ANSWER_LINE]
    plain = STATS.centre(sims, ["ko", "ko"])
    mixed = STATS.centre_mixed(sims, texts, "zh")
    assert plain[0] > plain[1]  # centred as Korean alone, the name line led
    assert mixed[1] > mixed[0]
    assert mixed[1] == pytest.approx(plain[1])  # a sentence in one script is centred as before


def test_the_questions_own_language_is_centred_as_before():
    sims = np.asarray([0.80, 0.78], dtype=np.float32)
    texts = [NAME_LINE, ANSWER_LINE]
    assert np.allclose(STATS.centre_mixed(sims, texts, "ko"), STATS.centre(sims, ["ko", "ko"]))


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("mixed-script-centring"), TEXTS)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def engine(kb):
    return OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))


def test_the_agreement_is_not_quoted_as_the_answer_to_another_question(kb, engine):
    # the Chinese agreement names the bakery and states a date, of its signing; centred as a Korean sentence (it writes
    # the bakery's Korean name) it matched the question by meaning and the agent answered with it, confirmed
    run = run_question(QUESTION, kb, engine, kb.settings)
    assert run.error is None, run.error
    assert "2019년 9월" in run.answer or run.stop_reason != "quality_met", (run.stop_reason, run.answer)
