"""The offline decision engine (rules and scores, no language model), one module per decision:

| module | decision / content |
|---|---|
| ``engine.py`` | ``OfflineEngine``: composes the parts below, embedder access, ``describe()`` |
| ``routing.py`` | ``classify`` — direct / web / graph / vector |
| ``grading.py`` | ``grade`` — CRAG label of one document or graph fact |
| ``evaluation.py`` | ``evaluate`` — context quality of the graded documents |
| ``rewriting.py`` | ``rewrite`` — the next query |
| ``answering.py`` | ``generate`` — extractive, graph-path (hop by hop), naive and partial answers |
| ``selection.py`` | which sentences an answer quotes (meaning, key terms, numbers, the section a question asks for) |
| ``layout.py`` | how a document's lines are laid out: list items, numbered steps, titles, bylines, table rows |
| ``semantics.py`` | question ↔ sentence similarity across languages (sentence vectors from ``rag.sentences``) |
| ``temporal.py`` | today's date (a settable clock) and time relative to it and to the knowledge base |
| ``direct.py`` | direct answers (arithmetic, translation, code recipes) |
| ``extraction.py`` | ``extract`` glue to ``rag.extract`` |
| ``coverage.py`` ``relations.py`` ``text.py`` ``arithmetic.py`` | shared helpers (key terms, graph paths, text) |
| ``critics.py`` ``kinds.py`` | judging-RAG critics and question kinds / table planning (other issues' modules) |
| ``rules.py`` | every tuned number and word list, each saying what it was tuned on |
| ``vocabulary.py`` | glossary, synonyms, code recipes, answer frames |

A new critic is a new module here plus a method on ``OfflineEngine``.
"""
from rag.engines.offline.arithmetic import extract_expression, list_aggregate, safe_eval
from rag.engines.offline.coverage import Coverage, coverage_of, question_terms
from rag.engines.offline.engine import OfflineEngine
from rag.engines.offline.relations import asked_relations, graph_path
from rag.engines.offline.rules import OfflineRules
from rag.engines.offline.text import language_of
from rag.engines.offline.vocabulary import FRAMES, GLOSSARY

__all__ = ["FRAMES", "GLOSSARY", "Coverage", "OfflineEngine", "OfflineRules", "asked_relations", "coverage_of",
           "extract_expression", "graph_path", "language_of", "list_aggregate", "question_terms", "safe_eval"]
