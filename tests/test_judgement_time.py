"""Issue 8: time relative to today and to the knowledge base, and answers scoped by the heading they sit under.

Documents written for this test: two incident reports with dated events and `## Root cause` / `## 원인` sections.
The engine's clock is fixed, so nothing depends on the day the test runs.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.types import Retrieved
from rag.variants import run_question

TEXTS = {
    "export_incident_en.md": (
        "# Billing export delay, August 2026\n\n## Summary\n\n"
        "On 3 August 2026 the nightly billing export finished six hours late. "
        "Invoices for 340 customers were sent a day later than usual.\n\n## Root cause\n\n"
        "A schema migration added an index to the invoices table while the export was running, "
        "which locked the table for most of the night.\n\n## Follow-up\n\n"
        "Schema migrations are now blocked between 22:00 and 06:00, and the export alerts the on-call engineer "
        "when it runs longer than two hours.\n"),
    "payment_incident_ko.md": (
        "# 2025년 3월 결제 시스템 장애 보고서\n\n## 요약\n\n"
        "2025년 3월 14일 결제 시스템이 47분 동안 멈췄다. 고객 약 1,200명이 그동안 결제하지 못했다.\n\n## 원인\n\n"
        "데이터베이스 연결 풀의 최대 연결 수가 20으로 너무 작게 설정되어 있었다. "
        "주말 할인 행사로 요청이 몰리자 연결이 모두 소진되었다.\n\n## 조치\n\n"
        "연결 풀 크기를 100으로 늘리고, 연결 수가 80%를 넘으면 경보가 울리게 했다.\n"),
}
TODAY = date(2026, 12, 1)


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("judgement-time"), TEXTS)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def engine(kb):
    return OfflineEngine(kb.settings, clock=lambda: TODAY)


@pytest.mark.parametrize("question, marker", [
    ("What is the latest version of the billing exporter?", "latest"),
    ("How many invoices were sent this month?", "this month"),
    ("Did the export run today?", "today"),
    ("결제 시스템의 최신 장애 현황은?", "최신"),
    ("오늘 결제 시스템 상태는 어때?", "오늘"),
    ("이번 달 장애는 몇 건이야?", "이번 달"),
    ("最新的账单导出故障是什么？", "最新"),
    ("今天支付系统正常吗？", "今天"),
])
def test_questions_about_now_go_to_the_web(engine, question, marker):
    decision = engine.classify(question, known_entities=[])
    assert decision.strategy == "web" and marker in decision.reason


def test_a_dated_event_the_documents_cover_goes_to_the_documents(engine):
    decision = engine.classify("What was the root cause of the August 2026 billing export delay?", [])
    assert decision.strategy == "vector", decision.reason
    assert any("dated event" in c for c in decision.signals["checked"])


def test_a_recent_year_the_documents_do_not_mention_goes_to_the_web_relative_to_the_clock(kb):
    question = "Which billing tools were released in 2027?"
    assert OfflineEngine(kb.settings, clock=lambda: TODAY).classify(question, []).strategy == "web"
    # the same question years later: 2027 is history, the documents are the default place to look
    later = OfflineEngine(kb.settings, clock=lambda: date(2031, 6, 1)).classify(question, [])
    assert later.strategy == "vector", later.reason
    # and a year just before today's counts as recent
    assert OfflineEngine(kb.settings, clock=lambda: date(2028, 1, 10)).classify(question, []).strategy == "web"


def test_a_cause_question_quotes_the_section_under_root_cause(kb, engine):
    run = run_question("What was the root cause of the August 2026 billing export delay?", kb, engine, kb.settings)
    assert run.error is None and run.route == "vector" and not run.abstained
    conclusion = run.answer.splitlines()[0]
    assert "schema migration" in conclusion, run.answer
    assert "six hours late" not in conclusion  # the Summary sentence is not the cause
    generate = next(s for s in run.steps if s.node == "generate")
    assert "Root cause" in generate.reason


def test_a_korean_cause_question_quotes_the_korean_section(kb, engine):
    run = run_question("2025년 3월 결제 장애의 원인은 무엇이었나요?", kb, engine, kb.settings)
    assert run.error is None and not run.abstained
    assert "연결 풀" in run.answer.splitlines()[0], run.answer
    assert "47분 동안 멈췄다" not in run.answer.splitlines()[0]


def test_a_cross_lingual_cause_question_finds_the_cause_section(kb, engine):
    run = run_question("Why did the payment system stop in March 2025?", kb, engine, kb.settings)
    assert run.error is None and not run.abstained, run.answer
    assert "연결" in run.answer.splitlines()[0], run.answer


def test_this_year_needs_todays_year_in_the_document(engine):
    doc = Retrieved(id="x:0", text="The billing export was rewritten in 2024 and now runs every night.",
                    source="x.md", score=1.0, tool="web", metadata={"dense_similarity": 0.93})
    old = engine.grade("Was the billing export rewritten this year?", doc)
    assert old.label != "correct" and "2026" in old.reason
    fresh = Retrieved(id="y:0", text="The billing export was rewritten in 2026 and now runs every night.",
                      source="y.md", score=1.0, tool="web", metadata={"dense_similarity": 0.93})
    assert engine.grade("Was the billing export rewritten this year?", fresh).label == "correct"
    latest = engine.grade("What is the latest change to the billing export?", fresh)
    assert latest.label != "correct" and "latest" in latest.reason
