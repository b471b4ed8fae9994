"""Teaching notes: what each node did and why, in plain Korean and English, drawn from the recorded step."""
from __future__ import annotations

from collections import Counter

from rag.trace import Run, Step

# What the node is for, independent of the run.
NODE_PURPOSE: dict[str, tuple[str, str]] = {
    "classify": ("질문을 읽고 어디서 답을 찾을지 정합니다: 문서 벡터 검색, 지식 그래프, 웹, 또는 검색 없이 바로 답변.",
                 "Reads the question and decides where to look: document vector search, the knowledge graph, "
                 "the web, or no retrieval at all."),
    "retrieve_vector": ("문서 조각(청크)을 의미 유사도(벡터)와 키워드(BM25)로 함께 찾아 순위를 합칩니다.",
                        "Finds document chunks by meaning (vectors) and by keywords (BM25) and fuses the two rankings."),
    "retrieve_graph": ("질문 속 개체(사람, 조직, 모델…)를 지식 그래프에서 찾고, 연결된 관계를 몇 단계 따라가 근거 문장을 모읍니다.",
                       "Finds the question's entities in the knowledge graph and follows their relations a few hops, "
                       "collecting the sentences they came from."),
    "retrieve_web": ("웹 검색(Tavily)으로 최신 정보를 찾습니다. 키가 없으면 '사용 불가'로 기록되고, 다른 도구로 몰래 바꾸지 않습니다.",
                     "Searches the web (Tavily) for recent information. Without a key it is recorded as unavailable, "
                     "never silently replaced by another tool."),
    "grade_documents": ("가져온 문서 하나하나가 질문에 실제로 답하는지 채점합니다: correct / ambiguous / incorrect.",
                        "Grades every retrieved document on whether it actually answers the question: "
                        "correct / ambiguous / incorrect."),
    "evaluate_context": ("채점 결과로 전체 근거의 품질(0~1)을 계산해 기준값과 비교하고, 다음 행동을 정합니다.",
                         "Turns the grades into one context-quality score (0–1), compares it with the threshold, "
                         "and decides what to do next."),
    "re_route": ("근거가 부족해서 아직 시도하지 않은 다른 검색 도구로 바꿉니다 (vector → graph → web).",
                 "The evidence was not good enough, so the agent switches to a retrieval tool it has not tried yet "
                 "(vector → graph → web)."),
    "rewrite_query": ("검색어를 더 구체적으로 다시 써서 같은 도구로 다시 찾습니다.",
                      "Rewrites the search query to be more specific and searches again with the same tool."),
    "generate": ("충분하다고 판단된 근거만으로 답을 쓰고, 각 주장에 출처를 붙입니다.",
                 "Writes the answer from the evidence judged good enough, citing a source for each claim."),
    "direct_generate": ("검색이 필요 없는 질문(번역, 계산, 일반 지식)이라 문서 없이 바로 답합니다.",
                        "The question needs no retrieval (translation, arithmetic, general knowledge), "
                        "so it is answered directly."),
    "partial_answer": ("시도 횟수를 다 썼거나 같은 검색이 반복되어 멈춥니다. 지어내지 않고, 찾은 것과 못 찾은 것을 나눠 말합니다.",
                       "The attempt budget ran out or the search repeated itself, so the agent stops. Instead of "
                       "inventing an answer it says what was found and what was not."),
    "retrieve": ("(naive RAG) 질문과 비슷한 문서 조각 상위 k개를 그대로 가져옵니다. 채점도 재검색도 없습니다.",
                 "(naive RAG) Takes the top-k chunks most similar to the question as they are: no grading, "
                 "no second try."),
}


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
    if node in ("generate", "direct_generate", "partial_answer"):
        extra_ko = " 근거가 부족해 답을 보류했습니다." if run.abstained else ""
        extra_en = " The evidence was insufficient, so it abstained." if run.abstained else ""
        return (f"출처 {len(run.citations)}개로 답을 만들었습니다.{extra_ko}",
                f"Wrote the answer with {len(run.citations)} citations.{extra_en}")
    return (reason or "-", reason or "-")


def teaching_note(step: Step, run: Run) -> tuple[str, str]:
    """(Korean, English) explanation of one step: what the node is for, then what it did here."""
    purpose_ko, purpose_en = NODE_PURPOSE.get(step.node, ("", ""))
    did_ko, did_en = step_specifics(step, run)
    return (f"{purpose_ko} {did_ko}".strip(), f"{purpose_en} {did_en}".strip())
