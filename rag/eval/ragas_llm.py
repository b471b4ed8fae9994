"""Optional LLM-judged RAGAS metrics (faithfulness, answer relevancy) through the ``ragas`` package.

These are *LLM-judged*: a model scores the answers, so they cost model calls and vary with the judge. They run
only when an LLM is configured (``engine == "llm"``) and ``ragas`` is installed; offline, the non-LLM metrics in
``rag.eval.metrics`` stand alone. ``ragas`` is not in requirements.txt: ragas 0.4.3 pins ``langchain-openai`` and
``openai`` to older majors than this project's, so install it in a separate environment if you want these scores.
"""
from __future__ import annotations

from typing import Any

from rag.config import Settings
from rag.types import RagError

INSTALL_HINT = ("the LLM-judged metrics need the optional 'ragas' package: pip install ragas "
                "(it pins older langchain-openai/openai than this project; use a separate virtualenv)")
LLM_JUDGED_KEYS = ("ragas_faithfulness", "ragas_answer_relevancy")


def _import_ragas() -> Any:
    try:
        import ragas  # noqa: F401
        from ragas import EvaluationDataset, evaluate
        from ragas.embeddings import LangchainEmbeddingsWrapper
        from ragas.llms import LangchainLLMWrapper
        from ragas.metrics import Faithfulness, ResponseRelevancy
    except ImportError as exc:
        raise RagError(f"{INSTALL_HINT} ({exc})") from None
    return EvaluationDataset, evaluate, LangchainEmbeddingsWrapper, LangchainLLMWrapper, Faithfulness, ResponseRelevancy


def check_available(settings: Settings) -> None:
    """Raise RagError (what is missing, how to get it) unless an LLM is configured and ragas imports."""
    if settings.engine != "llm":
        raise RagError("LLM-judged metrics need an LLM: set OPENAI_API_KEY (or OPENAI_BASE_URL) and RAG_ENGINE=llm")
    _import_ragas()


def _langchain_embeddings(settings: Settings) -> Any:
    from langchain_core.embeddings import Embeddings

    from rag.embeddings import get_embedder

    embedder = get_embedder(settings)

    class _Wrapped(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return embedder.embed_documents(texts)

        def embed_query(self, text: str) -> list[float]:
            return embedder.embed_query(text)

    return _Wrapped()


def add_llm_judged_metrics(report: dict[str, Any], settings: Settings, store: Any) -> dict[str, Any]:
    """Score each answered run with RAGAS faithfulness and answer relevancy; adds ``ragas_*`` keys in place.

    Per-question rows get ``ragas_faithfulness`` / ``ragas_answer_relevancy``; each variant gets their means and
    ``"llm_judged": true``. Raises RagError when no LLM is configured or ragas is missing.
    """
    check_available(settings)
    EvaluationDataset, ragas_evaluate, EmbWrapper, LLMWrapper, Faithfulness, ResponseRelevancy = _import_ragas()
    from langchain_openai import ChatOpenAI

    from rag.eval.metrics import mean, used_documents

    judge = ChatOpenAI(model=settings.router_model, api_key=settings.openai_api_key or "not-needed",
                       base_url=settings.openai_base_url, timeout=settings.llm_timeout_s, temperature=0)
    samples, rows = [], []
    for row in report["questions"]:
        run = store.get(row["run_id"]) if row.get("run_id") else None
        if run is None or run.error or not run.answer.strip():
            continue
        contexts = [d.text for d in used_documents(run)]
        samples.append({"user_input": run.question, "response": run.answer, "retrieved_contexts": contexts or [""]})
        rows.append(row)
    if not samples:
        return report
    result = ragas_evaluate(EvaluationDataset.from_list(samples), metrics=[Faithfulness(), ResponseRelevancy()],
                            llm=LLMWrapper(judge), embeddings=EmbWrapper(_langchain_embeddings(settings)))
    frame = result.to_pandas()
    for row, (_, scores) in zip(rows, frame.iterrows()):
        for key, column in (("ragas_faithfulness", "faithfulness"), ("ragas_answer_relevancy", "answer_relevancy")):
            value = scores.get(column)
            row[key] = None if value is None or value != value else round(float(value), 4)  # NaN -> None
    for name, metrics in report["variants"].items():
        mine = [r for r in report["questions"] if r["variant"] == name]
        for key in LLM_JUDGED_KEYS:
            value = mean(r.get(key) for r in mine)
            metrics[key] = None if value is None else round(value, 4)
        metrics["llm_judged"] = True
    report["llm_judged_metrics"] = list(LLM_JUDGED_KEYS)
    return report
