"""Teaching notes: what each node did and why, in plain Korean and English, drawn from the recorded step."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping

from rag.trace import Run, Step

class _RegistryNotes(Mapping):
    """What each node is for, independent of the run: the notes every registered variant declares (first one
    declaring a node wins; ``purpose(variant, node)`` asks one variant)."""

    def _merged(self) -> dict[str, tuple[str, str]]:
        from rag.variants import registry

        merged: dict[str, tuple[str, str]] = {}
        for name in registry.variant_names():
            for node, note in (registry.info(name, "notes", None) or {}).items():
                merged.setdefault(node, tuple(note))
        return merged

    def __getitem__(self, node: str) -> tuple[str, str]:
        return self._merged()[node]

    def __iter__(self) -> Iterator[str]:
        return iter(self._merged())

    def __len__(self) -> int:
        return len(self._merged())


NODE_PURPOSE: Mapping[str, tuple[str, str]] = _RegistryNotes()


def purpose(variant: str, node: str) -> tuple[str, str]:
    """(korean, english) purpose of ``node`` in ``variant``: its own note, else any variant's note of that node."""
    from rag.variants import registry

    note = registry.node_note(variant, node)
    return tuple(note) if note else NODE_PURPOSE.get(node, ("", ""))


def _grade_counts(step: Step) -> Counter:
    return Counter(d.grade for d in step.documents if d.grade)


def step_specifics(step: Step, run: Run) -> tuple[str, str]:
    """What this particular step did, from its recorded decision, reason, documents and status."""
    reason = step.reason.strip()
    if step.status == "failed":
        why = step.error or reason or "unknown"
        return (f"이 단계는 실패로 기록되었습니다: {why}. 실패도 한 번의 시도로 셉니다.",
                f"This step was recorded as failed: {why}. A failure counts as an attempt.")
    node = step.node
    n_docs = len(step.documents)
    if node == "classify":
        return (f"선택한 전략: {step.decision or '?'}. 이유: {reason or '-'}",
                f"Chosen strategy: {step.decision or '?'}. Why: {reason or '-'}")
    if node.startswith("retrieve"):
        query = step.inputs.get("query") or run.question
        return (f"검색어 “{query}”로 문서 {n_docs}개를 가져왔습니다 (시도 {step.attempt or '-'}).",
                f"Retrieved {n_docs} documents for “{query}” (attempt {step.attempt or '-'}).")
    if node == "grade_documents":
        c = _grade_counts(step)
        return (f"correct {c.get('correct', 0)}개, ambiguous {c.get('ambiguous', 0)}개, "
                f"incorrect {c.get('incorrect', 0)}개로 채점했습니다.",
                f"Graded {c.get('correct', 0)} correct, {c.get('ambiguous', 0)} ambiguous and "
                f"{c.get('incorrect', 0)} incorrect.")
    if node == "evaluate_context":
        attempt = next((a for a in run.attempts if a.number == step.attempt), None)
        quality = step.output.get("quality", attempt.quality if attempt else None)
        threshold = run.settings.get("threshold")
        q = f"{quality:.2f}" if isinstance(quality, (int, float)) else "?"
        return (f"품질 {q} / 기준 {threshold} → 다음 행동: {step.decision or '?'}. 이유: {reason or '-'}",
                f"Quality {q} vs threshold {threshold} → next: {step.decision or '?'}. Why: {reason or '-'}")
    if node == "re_route":
        target = step.output.get("strategy") or step.decision or "?"
        return (f"다음 도구: {target}. 이유: {reason or '-'}", f"Next tool: {target}. Why: {reason or '-'}")
    if node == "rewrite_query":
        query = step.output.get("query") or step.decision or "?"
        return (f"새 검색어: “{query}”. 이유: {reason or '-'}", f"New query: “{query}”. Why: {reason or '-'}")
    judged = _judging_specifics(step)
    if judged is not None:
        return judged
    if node in ("generate", "direct_generate", "partial_answer", "generate_once", "not_found"):
        extra_ko = " 근거가 부족해 답을 보류했습니다." if run.abstained else ""
        extra_en = " The evidence was insufficient, so it abstained." if run.abstained else ""
        return (f"출처 {len(run.citations)}개로 답을 만들었습니다.{extra_ko}",
                f"Wrote the answer with {len(run.citations)} citations.{extra_en}")
    return (reason or "-", reason or "-")


def teaching_note(step: Step, run: Run) -> tuple[str, str]:
    """(Korean, English) explanation of one step: what the node is for, then what it did here."""
    purpose_ko, purpose_en = purpose(run.variant, step.node)
    did_ko, did_en = step_specifics(step, run)
    return (f"{purpose_ko} {did_ko}".strip(), f"{purpose_en} {did_en}".strip())


def _judging_specifics(step: Step) -> tuple[str, str] | None:
    """What the judging-RAG family's own nodes did (tool_agent, self_rag, crag, adaptive), from their outputs."""
    out, reason = step.output or {}, step.reason.strip() or "-"
    node = step.node
    if node == "agent":
        call = out.get("tool_call")
        if call:
            return (f"검색 도구를 부르기로 했습니다 (검색어 “{call.get('query', '')}”). 이유: {reason}",
                    f"Decided to call the retriever tool (query “{call.get('query', '')}”). Why: {reason}")
        return (f"검색 없이 바로 답했습니다. 이유: {reason}", f"Answered without the tool. Why: {reason}")
    if node == "decide_retrieval":
        wants = out.get("retrieve")
        return ((f"검색이 필요하다고 판단했습니다. 이유: {reason}" if wants else f"검색 없이 답하기로 했습니다. 이유: {reason}"),
                (f"Decided retrieval is needed. Why: {reason}" if wants else
                 f"Decided to answer without retrieval. Why: {reason}"))
    if node == "classify_complexity":
        label = out.get("complexity") or step.decision
        ko = {"simple": "단순", "moderate": "중간", "complex": "복잡"}.get(label, label)
        return (f"복잡도: {ko}. 이유: {reason}", f"Complexity: {label}. Why: {reason}")
    if node == "refine_knowledge":
        kept, dropped = out.get("kept_sentences", 0), out.get("dropped_sentences", 0)
        return (f"문장 {kept}개를 남기고 {dropped}개를 버렸습니다. 생성기에는 남긴 문장만 들어갑니다.",
                f"Kept {kept} sentences and dropped {dropped}; only the kept ones reach the generator.")
    if node == "check_hallucination":
        bad = out.get("unsupported") or []
        if bad:
            return (f"근거 없는 문장 {len(bad)}개를 찾았습니다 (예: “{str(bad[0])[:60]}”). 다음: {out.get('next_action')}",
                    f"Found {len(bad)} unsupported sentence(s) (e.g. “{str(bad[0])[:60]}”). Next: "
                    f"{out.get('next_action')}")
        return (f"모든 문장이 문서로 뒷받침됩니다. 이유: {reason}", f"Every sentence is supported. Why: {reason}")
    if node == "grade_answer":
        useful = out.get("label") != "not_useful"
        return ((f"답이 질문에 답합니다. 이유: {reason}" if useful else f"답이 질문에 답하지 못합니다. 이유: {reason}"),
                (f"The answer addresses the question. Why: {reason}" if useful else
                 f"The answer does not address the question. Why: {reason}"))
    if node == "web_search" and step.status != "failed":
        return (f"웹 결과 {len(step.documents)}개를 더했습니다.", f"Added {len(step.documents)} web result(s).")
    return None

