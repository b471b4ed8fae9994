"""Issue 8, round 2: the extractive answer quotes the sentence that states what the question asks for when the
documents were graded right — a frequency, a person, a place; a procedure's ordered steps (a numbered list, not a
bulleted list of rules); never a document's title line as the conclusion. Documents written for this test."""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.answertype import STRONG, asked_type, fit, stated_values
from rag.engines.offline.coverage import question_terms
from rag.engines.offline.semantics import question_intents
from rag.types import Grade, Retrieved


@pytest.fixture
def settings(data_dir):
    from tests.support.kb import make_settings

    return make_settings(data_dir)


def _doc(i: int, source: str, text: str) -> Retrieved:
    return Retrieved(id=f"{source}#{i}", text=text, source=source, score=1.0, tool="vector", doc_id=source,
                     chunk_index=0)


def _answer(settings, question: str, texts: dict[str, str], scores: list[float] | None = None):
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
    docs = [_doc(i, s, t) for i, (s, t) in enumerate(texts.items())]
    grades = [Grade("correct", sc, "test") for sc in (scores or [0.8] * len(docs))]
    return engine.generate(question, docs, grades, "answer")


def _conclusion(answer) -> str:
    return answer.text.splitlines()[0]


# ---- asked types: frequency, person, place (ko / en / zh language patterns) ----------------------------------------
@pytest.mark.parametrize("question, label", [
    ("How often is the reading room cleaned?", "frequency"),
    ("How many days per week is the studio open?", "frequency"),
    ("열람실은 주 몇 회 청소하나요?", "frequency"),
    ("일주일에 몇 번 점검하나요?", "frequency"),
    ("阅览室每周几次清洁？", "frequency"),  # not a weekday ("周几")
    ("Who approves a refund?", "person"),
    ("환불은 누가 승인하나요?", "person"),
    ("退款由谁批准？", "person"),
    ("Where is the lost-and-found desk?", "place"),
    ("분실물 보관소는 어디에 있나요?", "place"),
    ("失物招领处在哪里？", "place"),
])
def test_asked_type_frequency_person_place(question, label):
    assert asked_type(question).label == label


@pytest.mark.parametrize("question, sentence", [
    ("열람실은 주 몇 회 청소하나요?", "열람실은 주 2회 청소한다."),
    ("How often is the reading room cleaned?", "The reading room is cleaned twice a week."),
    ("How many days per week is the studio open?", "The studio opens 3 days a week."),
    ("阅览室每周几次清洁？", "阅览室每周两次清洁。"),
    ("Who approves a refund?", "Refunds are approved by Dana Whitfield, the finance manager."),
    ("환불은 누가 승인하나요?", "환불은 재무팀 박서연 팀장이 승인한다."),
    ("退款由谁批准？", "退款由财务组的王海林（Hailin Wang）批准。"),
    ("退款由谁批准？", "退款由财务组组长王海林批准。"),
    ("Where is the lost-and-found desk?", "Lost property is kept at the information desk on the 2nd floor."),
    ("분실물 보관소는 어디에 있나요?", "분실물은 본관 1층 안내데스크에서 보관한다."),
    ("失物招领处在哪里？", "失物招领处位于一楼服务台旁边。"),
])
def test_sentence_states_the_asked_frequency_person_place(question, sentence):
    assert fit(asked_type(question), sentence) == STRONG


def test_hours_per_day_is_a_duration_not_a_frequency():
    assert asked_type("How many hours per day can a member use the pool?").label == "quantity (hour)"


def test_sentence_without_the_asked_kind_does_not_fit_strongly():
    assert fit(asked_type("Who approves a refund?"), "Refunds are approved within 3 working days.") < STRONG
    assert fit(asked_type("How often is the reading room cleaned?"), "The reading room has 40 seats.") < STRONG
    assert fit(asked_type("Where is the lost-and-found desk?"), "Lost property is kept for 30 days.") < STRONG


def test_an_english_count_with_an_adjective_keeps_its_unit():
    values = stated_values("212 online bookings were charged twice.")
    assert any(v.kind == "quantity" and v.unit == "case" and v.text.startswith("212") for v in values)
    assert fit(asked_type("How many bookings were charged twice?"), "212 online bookings were charged twice.") == STRONG


@pytest.mark.parametrize("question", [
    "How can a visitor without a card borrow a tablet?",
    "How should the member renew a loan?",
])
def test_procedure_cue_with_a_noun_subject(question):
    assert "procedure" in question_intents(question)


def test_how_does_something_work_is_not_a_procedure():
    assert "procedure" not in question_intents("How does the tablet battery last so long?")


# ---- selection ----------------------------------------------------------------------------------------------------
CLUB_TXT = ("Riverside Rowing Club — Member Handbook 2026\n\n"
            "The club rows on the river every weekend from March to October.\n\n"
            "Safety\n\n"
            "Every rower must pass a swimming test before the first outing. The boathouse is locked at 20:00.\n")
KILN_ZH = ("陶艺工作室 窑炉故障报告（2026年4月）\n\n"
           "2026年4月3日，工作室的两台窑炉中有一台无法升温，当天的烧制课程取消。\n\n"
           "原因\n\n"
           "新安装的温控器默认使用华氏度，设定的 1200 度因此被当作华氏度执行，窑温远低于要求。\n")


def test_a_title_line_is_never_the_conclusion(settings):
    answer = _answer(settings, "What must every rower pass before the first outing?", {"club.txt": CLUB_TXT})
    assert "swimming test" in _conclusion(answer), answer.text
    assert "Member Handbook" not in _conclusion(answer), answer.text


def test_a_title_line_ranks_below_the_sentences_under_it(settings):
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
    question = "2026年4月陶艺工作室窑炉故障的原因是什么？"
    terms, _ = question_terms(question)
    ranked = engine._rank_sentences(question, terms, [_doc(0, "kiln.txt", KILN_ZH)])
    # the title and "原因" are headings of the plain text (rag.sentences.plain_heading), not sentences: the cause
    # sentence sits under "原因" and ranks first
    assert not any(c.text.startswith("陶艺工作室 窑炉故障报告") for c in ranked)
    assert ranked[0].text.startswith("新安装的温控器") and ranked[0].heading == "原因" and ranked[0].scoped
    answer = _answer(settings, question, {"kiln.txt": KILN_ZH})
    assert "窑炉故障报告" not in _conclusion(answer), answer.text
    assert "2026年4月3日" in _conclusion(answer) or "华氏度" in _conclusion(answer), answer.text


PENSION_TXT = ("Hillside Pet Hotel\n\n"
               "DAY CARE\n"
               "Dogs can stay for the day from 8 am to 7 pm for 20,000 KRW.\n\n"
               "HOLIDAY STAYS\n"
               "While owners travel, small dogs stay for 35,000 KRW per night, for up to 21 nights.\n")
RULES_TXT = ("산호 공방 안전 규정\n\n"
             "제1조 (목적)\n이 규정은 공방 이용자의 안전을 위한 것이다.\n\n"
             "제2조 (가마)\n가마는 강사가 있을 때만 켤 수 있고, 한 번에 최대 6시간까지 쓴다.\n")


@pytest.mark.parametrize("text, question, heading, fact", [
    # a plain-text heading in capitals, its paragraph right under it (no blank line)
    (PENSION_TXT, "How many nights can my small dog stay while I travel on holiday?", "HOLIDAY STAYS", "21 nights"),
    # a numbered article line of a regulation
    (RULES_TXT, "가마는 한 번에 몇 시간까지 쓸 수 있어?", "제2조 (가마)", "6시간"),
])
def test_a_heading_line_is_a_title_even_without_a_blank_line_under_it(settings, text, question, heading, fact):
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
    terms, _ = question_terms(question)
    ranked = engine._rank_sentences(question, terms, [_doc(0, "doc.txt", text)])
    # the heading line is the section of the sentence under it, not a sentence of its own
    assert not any(c.text == heading for c in ranked)
    assert next(c for c in ranked if fact in c.text).heading == heading
    answer = _answer(settings, question, {"doc.txt": text})
    assert fact in _conclusion(answer) and heading not in _conclusion(answer), answer.text


RULES_KO = ("스튜디오 이용 규정\n\n"
            "- 회원 1인당 한 번에 최대 3시간까지 예약할 수 있다.\n"
            "- 예약은 하루에 한 번만 할 수 있다.\n"
            "- 취소는 이용 하루 전까지 해야 한다.\n")
BOOKING_ZH = ("# 录音室使用指南\n\n"
              "## 团体预约录音室\n\n"
              "五人以上的团体需要提前预约。预约步骤如下：\n"
              "1. 至少提前三天在网站填写团体预约表。\n"
              "2. 填写人数、日期和需要的设备。\n"
              "3. 工作室在一个工作日内通过电子邮件确认。\n"
              "4. 当天在前台出示确认邮件并领取门卡。\n")


def test_procedure_prefers_numbered_steps_over_a_bulleted_rule_list(settings):
    answer = _answer(settings, "团体应该怎么预约录音室？", {"rules.txt": RULES_KO, "booking.md": BOOKING_ZH})
    assert "三天" in answer.text and "电子邮件" in answer.text, answer.text
    assert "3시간" not in answer.text, answer.text


def test_person_question_quotes_the_sentence_naming_the_person(settings):
    doc = ("# 设备维护\n\n"
           "录音设备的运行数据记录在 StudioLog 中，2025 年全年共运行 1,240 小时。\n"
           "混音台的数据同样由 StudioLog 记录。\n"
           "设备组由技术总监李明华（Minghua Li）负责，现有组员 4 人。\n")
    answer = _answer(settings, "录音设备的数据记录系统由哪个小组维护？这个小组的负责人是谁？", {"maint.md": doc})
    assert "李明华" in answer.text, answer.text


def test_graded_best_document_counts_as_on_topic_for_the_asked_value(settings):
    """The agent's grades: in the best-graded document a sentence stating the asked value gets the value bonus
    without a key term of its own; naive (no grades) does not."""
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
    question = "How many passengers were on the bus when it turned back?"
    doc = ("# Bus return report\n\n"
           "On 9 June the night bus turned back 20 minutes after leaving the depot.\n"
           "All 41 on board got off safely.\n")
    terms, _ = question_terms(question)
    docs = [_doc(0, "return.md", doc)]
    plain = {c.text: c.rank for c in engine._rank_sentences(question, terms, docs)}
    graded = {c.text: c.rank for c in engine._rank_sentences(question, terms, docs, graded=[0.8])}
    sentence = "All 41 on board got off safely."
    assert graded[sentence] >= plain[sentence]
    other = "On 9 June the night bus turned back 20 minutes after leaving the depot."
    assert graded[other] == pytest.approx(plain[other])  # no value of the asked kind: unchanged


def test_asked_value_from_a_confirmed_document_beats_one_from_an_ambiguous_document(settings):
    """The agent's grades: both documents name a person; the one graded correct answers 'who', the one graded only
    ambiguous does not, however close its sentence ranks."""
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
    maint = ("# 设备维护\n\n录音设备的运行数据记录在 StudioLog 中。\n"
             "设备组由技术总监李明华（Minghua Li）负责，现有组员 4 人。\n")
    other = "# 前台\n\n负责前台接待的赵雅琪（Yaqi Zhao）已更新值班表。\n"
    docs = [_doc(0, "maint.md", maint), _doc(1, "desk.md", other)]
    grades = [Grade("correct", 0.8, "test"), Grade("ambiguous", 0.5, "test")]
    answer = engine.generate("录音设备的数据由哪个小组负责？负责人是谁？", docs, grades, "answer")
    assert "李明华" in answer.text, answer.text
    assert "赵雅琪" not in answer.text, answer.text


POOL_EN = ("# Swimming pool\n\n"
           "The pool is next to the gym on the ground floor.\n"
           "On weekdays the pool opens at 6 am and closes at 10 pm.\n")


def test_a_partial_answer_shows_each_term_in_its_best_ranked_sentence(settings):
    # "pool" is first named in an aside; the sentence that also speaks of weekdays is the one to show
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
    doc = _doc(0, "pool.md", POOL_EN)
    answer = engine.generate("What is the chlorine level of the pool on weekdays?", [doc],
                             [Grade("ambiguous", 0.5, "test")], "partial")
    assert "On weekdays the pool opens at 6 am" in answer.text, answer.text
    assert "next to the gym" not in answer.text and "- Swimming pool" not in answer.text, answer.text  # nor the title
    assert "'chlorine'" in answer.text  # still said as not found


# ---- a value asked without "how": a superlative, a money word alone, a fare with several words before it ---------
@pytest.mark.parametrize("question, label", [
    ("What's the longest my hamster can stay while I'm away?", "duration"),
    ("what is the minimum order you will deliver?", "quantity"),
    ("What's the highest water temperature allowed?", "temperature"),  # a temperature (twenty-seventh session)
    ("parking no-show fee?", "money"),
    ("주차 위약금은?", "money"),
    ("押金？", "money"),
    ("What is the adult one-way fare on the island route?", "money"),
    # a stake is a percentage
    ("合资公司里两家各占多少股份？", "percent"), ("합작법인 지분은 얼마야?", "percent"),
    ("How big a stake does it hold?", "percent"), ("What is at stake here?", ""),
    # a yes / no question about a charge, a superlative of a place or a compound adjective: no amount asked
    ("停车是否收费？", ""), ("Parking free of charge?", ""), ("What's the largest city where it operates?", "place"),
    ("What's the longest-running show?", ""), ("What is the reason for the fee?", "cause"),
    # not a value: an adjective after "most", a money word that a question word asks something else about
    ("What is the most popular menu?", ""),
    ("Who sets the fee?", "person"),
    ("When is the fee due?", "date or time"),
    ("요금은 어디서 내요?", "place"),
])
def test_a_value_asked_without_how(question, label):
    assert asked_type(question).label == label


def test_a_bare_money_question_quotes_the_amount(settings):
    doc = ("# Parking\n\n"
           "Members can book a parking slot online up to 7 days ahead.\n"
           "Slots are cancelled free of charge until noon the day before.\n"
           "A later cancellation, or not turning up, costs 12,000 won.\n"
           "The parking desk answers questions about slots, fees and permits.\n")
    answer = _answer(settings, "parking slot no-show fee?", {"parking.md": doc})
    assert "12,000 won" in _conclusion(answer), answer.text


def test_a_name_in_the_heading_counts_for_the_sentences_under_it(settings):
    """A value question: the system's name is in the section heading, and the sentence stating the value says "It".
    The name counts for that sentence (as a key term found), the heading's other words do not."""
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
    doc = ("# Systems overview\n\n"
           "## Harbor app\n\n"
           "Passengers check timetables in the Harbor app.\n"
           "The Harbor app has sent bookings to Quaybook since 2019.\n\n"
           "## {heading}\n\n"
           "It takes every ferry booking, online and at the ticket desk.\n"
           "It was built in-house and went live in 2021.\n")
    sentence = "It was built in-house and went live in 2021."
    for question in ("Quaybook 订票系统是哪一年上线的？", "Quaybook 예약 시스템은 몇 년에 도입됐어요?",
                     "Which year did Quaybook go live?"):
        terms, _ = question_terms(question)
        ranks = {}
        for heading in ("Quaybook", "Booking desk"):
            docs = [_doc(0, "systems.md", doc.format(heading=heading))]
            ranked = {c.text: c for c in engine._rank_sentences(question, terms, docs, graded=[0.8])}
            ranks[heading] = ranked[sentence].rank
            assert (ranked[sentence].cov.credit.get("quaybook", 0) > 0) == (heading == "Quaybook"), question
        assert ranks["Quaybook"] > ranks["Booking desk"], (question, ranks)
    answer = _answer(settings, "Which year did Quaybook go live?", {"systems.md": doc.format(heading="Quaybook")})
    assert "2021" in _conclusion(answer), answer.text
