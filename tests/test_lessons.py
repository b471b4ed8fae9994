"""Failure lessons: every lesson in lessons/ runs offline in its own data dir; its F-label shows on the expected
variant and the comparison variant avoids it (labels from rag.failures, the same rules the app shows)."""
from __future__ import annotations

import shutil

import pytest
import yaml

from rag.lessons import CODES, LESSONS_DIR, load_lessons, parse_lesson, run_lesson
from rag.types import RagError

LESSONS = load_lessons()


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("lessons-base")


@pytest.fixture(scope="module")
def results(base):
    return {lesson.id: run_lesson(lesson, base) for lesson in LESSONS}


def test_one_lesson_per_failure_kind():
    assert sorted({lesson.code for lesson in LESSONS} & set(CODES)) == list(CODES)


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.id for lesson in LESSONS])
def test_lesson_shows_its_failure_and_the_comparison_avoids_it(lesson, results):
    result = results[lesson.id]
    assert list(result.runs) == lesson.variants
    assert all(run.error is None for run in result.runs.values())
    found = result.label(lesson.expected_variant)
    assert found is not None, (lesson.code, {v: result.codes(v) for v in result.runs})
    assert result.shows and found.steps  # at the expected level, pointing at steps to highlight
    assert max(found.steps) <= len(result.runs[lesson.expected_variant].steps)
    assert result.avoided, (lesson.compare, result.codes(lesson.compare))


def test_lessons_leave_the_users_data_alone(base, results):
    # only the lessons folder was written: no knowledge base, run store or checkpoints of the user's own
    assert [p.name for p in base.iterdir()] == ["lessons"]
    for result in results.values():
        assert result.data_dir.is_relative_to(base / "lessons" / result.lesson.id)
        assert (result.data_dir / "runs.sqlite3").exists()


def test_a_teacher_copies_and_edits_a_lesson(tmp_path):
    source = LESSONS_DIR / "f6-needless-retrieval.yaml"
    data = yaml.safe_load(source.read_text(encoding="utf-8"))
    data["id"], data["question"] = "f6-my-copy", "12 더하기 30은?"
    (tmp_path / "f6-my-copy.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    shutil.copy(source, tmp_path / source.name)
    lessons = load_lessons(tmp_path)
    assert [lesson.id for lesson in lessons] == ["f6-my-copy", "f6-needless-retrieval"]
    assert lessons[0].fingerprint() == lessons[1].fingerprint()  # same corpus: the edit changes no index

    broken = dict(data, variants=["naive", "no_such_variant"])
    with pytest.raises(RagError, match="unknown variant.*no_such_variant"):
        parse_lesson(broken)
    with pytest.raises(RagError, match="missing question"):
        parse_lesson({k: v for k, v in data.items() if k != "question"})


def test_f3_naive_composes_what_the_context_never_states_and_self_rags_check_would_catch_it(results, base):
    from rag.engines.offline import OfflineEngine
    from rag.lessons import lesson_settings
    from rag.types import Retrieved

    result = results["f3-unsupported-sentences"]
    naive, self_rag = result.runs["naive"], result.runs["self_rag"]
    composed = 'The answer to "which city does she work in" is Hanbit Labs.'
    generate = next(s for s in naive.steps if s.node == "generate")
    # recorded as composed (not quoted) in the trace, in the conclusion without a citation, never as evidence
    assert "composed, not quoted" in generate.reason and "Hanbit Labs" in generate.reason
    conclusion, evidence = naive.answer.splitlines()[0], naive.answer.split("Evidence:")[1]
    assert conclusion.endswith(composed) and composed not in evidence
    assert "Hanbit Labs" in naive.generator_context and "city" not in naive.generator_context  # a name, not a fact
    assert "which city" in result.label("naive").reason and result.label("naive").level == "observed"
    # Self-RAG quotes only and says what is not confirmed; its check passed every sentence of its own answer
    assert "Hanbit Labs" not in self_rag.answer and "'city'" in self_rag.answer
    check = [s for s in self_rag.steps if s.node == "check_hallucination"][-1]
    assert check.decision == "supported" and check.output["unsupported"] == []
    # the same check on naive's answer and context flags exactly the composed sentence
    engine = OfflineEngine(lesson_settings(result.lesson, base))
    docs = [Retrieved(id=d.id, text=d.text, source=d.source, score=d.score, tool=d.tool) for d in naive.documents]
    verdict = engine.grade_hallucination(naive.question, naive.answer, docs)
    assert verdict.label == "not_supported" and verdict.details["unsupported"] == [composed], verdict.details


def test_the_aggregate_trap_of_seed_002_goes_to_sql_in_the_comparison(results):
    result = results["f7-aggregate-to-vector"]
    assert "retrieve_sql" in result.runs["agentic"].path and "270" in result.runs["agentic"].answer
    assert result.runs["naive"].path == ["retrieve_vector", "generate"] and "270" not in result.runs["naive"].answer


def test_cli_lists_and_runs_a_lesson(tmp_path, monkeypatch, capfd):
    import json

    from rag.cli import main as cli_main

    monkeypatch.setenv("RAG_DATA_DIR", str(tmp_path / "data"))
    assert cli_main(["lessons", "--json"]) == 0
    listed = json.loads(capfd.readouterr().out)
    assert {row["id"] for row in listed} == {lesson.id for lesson in LESSONS}
    out = tmp_path / "f6.html"
    assert cli_main(["lessons", "f6-needless-retrieval", "--json", "-o", str(out)]) == 0
    data = json.loads(capfd.readouterr().out)
    assert data["shows"] and data["avoided"] and "F6" in data["variants"]["naive"]["labels"]
    assert "<svg" in out.read_text(encoding="utf-8")
    assert cli_main(["lessons", "no-such-lesson"]) != 0
