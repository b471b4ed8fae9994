"""Sentence units of every chunk and their vectors, computed once at ingest and stored beside the chunk.

A *unit* is one sentence (or list item) of a chunk with the nearest Markdown heading above it; it is embedded as
``"<heading>: <sentence>"`` so that a sentence under ``## Root cause`` / ``## 원인`` / ``## 原因`` carries that
context. The offline engine grades, evaluates and quotes at this level (question ↔ unit cosine), which works
across languages because the bundled embedder is multilingual.

Cost: ``embed_chunks`` embeds the units of a batch of chunks in one call and returns each chunk's vector as the
normalised mean of its unit vectors — the chunk is not embedded a second time, so ingest costs about one pass of
the embedder over the text (measured in ``bench/bench_engine.py``).

Storage: ``data_dir/sentences.sqlite3``, one row per chunk id: doc id, embedder name, a hash of the chunk text,
the units as JSON and their vectors as float32 bytes. ``SentenceStore.get`` returns only rows whose text hash and
embedder match, so a stale row is never used (it is recomputed and rewritten).
"""
from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import threading
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from rag.textutil import append_unwrapped, script_language, script_shares, split_sentences

DB_NAME = "sentences.sqlite3"
HEADING_CHARS = 120  # a heading longer than this is cut: it is context, not content (a title may end in its date)
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")


PATH_SEPARATOR = " › "


@dataclass
class Unit:
    heading: str  # headings above the sentence: "document title › section" ("" when none)
    text: str  # the sentence as written (list markers removed)
    # the nearest heading is embedded with the sentence (a Markdown heading); a plain-text heading is structure only
    embeds_heading: bool = field(default=True, compare=False)

    @property
    def section(self) -> str:
        """The nearest heading above the sentence."""
        return self.heading.rsplit(PATH_SEPARATOR, 1)[-1]

    def embed_text(self) -> str:
        return f"{self.section}: {self.text}" if self.section and self.embeds_heading else self.text


@dataclass
class ChunkSentences:
    units: list[Unit]
    vectors: np.ndarray  # float32, shape (len(units), dim), rows normalised


# the version of ``split_units``: part of a stored row's hash, so rows split by an older version are stale and recomputed
# (2: plain-text headings)
UNITS_VERSION = "2"


def text_hash(text: str) -> str:
    return hashlib.sha1((UNITS_VERSION + "\x00" + text).encode("utf-8", "replace")).hexdigest()[:16]


PLAIN_HEADING_MAX = 60  # characters: a longer line without a sentence end is a sentence, not a plain-text heading
_SENTENCE_END = re.compile(r"[.!?。！？:：;；,，]\s*[\"'”’)）]*$")
_BRACKETED = re.compile(r"^(?:\[[^\]]+\]|【[^】]+】|〔[^〕]+〕|<[^>]+>|\[\[.+\]\])$")
# the numbered article / chapter / section line of a regulation or an agreement (ko 제3조, zh 第三条, en Article 3)
ARTICLE_HEADING = re.compile(r"^(?:제\s*\d+\s*[조항장절]|第\s*[\d一二三四五六七八九十百]+\s*[条章节款]|"
                             r"(?:Article|Section|Chapter)\s+\d+)(?![\d.])")
_NUMBERED = re.compile(r"^\d+[.)]\s+(.+)$")
_CJK_NUMBERED = re.compile(r"^[一二三四五六七八九十]+[、．.]\s*\S")  # "一、概要"


def plain_heading(lines: Sequence[str], k: int, first: bool = False) -> str | None:
    """The text of ``lines[k]`` when it is the heading of a plain-text document (no "#"), else None: a short line
    with no sentence end that is bracketed ("[참여 조건]", "【退款】"), a numbered article ("제3조 (폐액)", "第二条 费用",
    "Article 4 Fees"), in capitals ("HOLIDAY BOARDING", "4. EXPORT BONUS"), a numbered section title with its text
    under it ("1. 여객 운임 (편도)" above "- 통영–한산도 항로: 7,500원", "一、概要", "1. Scope" above "1.1 …"), or
    that stands alone between blank lines above text; ``first``: the document's first line (its title, when it is
    short). ``lines`` are stripped. A table row, a bullet, a "key: value" line, a step of a numbered list and a last
    line with nothing under it are not headings."""
    line = lines[k]
    if not line or len(line) > HEADING_CHARS or line.startswith(("|", "-", "*", "•", ">")):
        return None
    if len(line) > PLAIN_HEADING_MAX and (re.search(r"[a-z]", line) or not re.search(r"[A-Z]", line)):
        return None  # only a line in capitals is a heading that long
    if _BRACKETED.match(line):
        return line.strip("[]【】〔〕<>").strip()
    following = next((rest for rest in lines[k + 1:] if rest), "")
    if _SENTENCE_END.search(line) or not following:
        return None  # a sentence, or nothing under it
    before_blank = k == 0 or not lines[k - 1]
    after_blank = k + 1 < len(lines) and not lines[k + 1]
    numbered = _NUMBERED.match(line)
    body = numbered.group(1) if numbered else line
    bare = re.sub(r"[(（][^)）]*[)）]", "", body)  # "SORTING CHARGES (deducted from settlement)"
    capitals = re.search(r"[A-Z]{2}", bare) is not None and bare.upper() == bare
    if capitals and (before_blank or numbered):
        return body
    if numbered:
        # a section title above its text, not a step: a blank line before it and no numbered item next
        return body if before_blank and not _NUMBERED.match(following) else None
    if first or _CJK_NUMBERED.match(line):
        return line
    if before_blank and (ARTICLE_HEADING.match(line) or (after_blank and ":" not in line and "：" not in line)):
        return line
    return None


def split_units(text: str, heading: str = "") -> tuple[list[Unit], str]:
    """Units of a chunk and the heading in force at its end (for the next chunk of the same document).

    ``heading``: the state returned for the previous chunk of the same document (chunks come in order). A line
    wrapped inside a sentence is joined to the next; headings and list items stay on their own; a heading line is
    not a unit, it is the context of the units below it: the document's title (its first level-1 heading) and the
    nearest heading."""
    units: list[Unit] = []
    merged: list[str] = []
    title, _, rest = heading.partition("\x1f")
    section, _, marked = rest.partition("\x1f")
    # the document has Markdown headings: no plain-text heading rules, and its headings are embedded with the
    # sentences under them (a plain-text heading is structure only)
    marked_up = marked == "md"

    def path() -> str:
        return PATH_SEPARATOR.join(p for p in (title, section) if p)

    def flush() -> None:
        for sentence in split_sentences("\n".join(merged)):
            clean = _BULLET.sub("", sentence).strip()
            if clean and re.search(r"\w", clean):
                units.append(Unit(path(), clean, embeds_heading=marked_up))
        merged.clear()

    lines = [raw.strip() for raw in text.strip().splitlines()]
    if not marked_up:
        marked_up = any(_HEADING.match(line) for line in lines)
    for k, line in enumerate(lines):
        m = _HEADING.match(line)
        first = k == 0 and not heading  # the first line of a document (a chunk that starts one: no state)
        plain = None if m or marked_up else plain_heading(lines, k, first)
        if m or plain:
            flush()
            name = (m.group(2).strip() if m else plain)[:HEADING_CHARS]
            if (len(m.group(1)) == 1 if m else first) and not title:
                title, section = name, ""
            else:
                section = name
            continue
        append_unwrapped(merged, line)
    flush()
    return units, f"{title}\x1f{section}\x1f{'md' if marked_up else ''}"


OVERLAP_PROBE = 24  # characters of a chunk's start looked up in the previous chunk (chunks overlap; chosen, not tuned)


def start_states(texts: Sequence[str]) -> list[str]:
    """The ``split_units`` heading state where each chunk of one document (in order) starts. Chunks overlap: the
    state is taken where a chunk starts inside the previous one, so a heading in the overlap is the next chunk's own,
    not the one it starts under."""
    states: list[str] = []
    state = ""
    for i, text in enumerate(texts):
        if i:
            previous = texts[i - 1]
            head = text.strip()[:OVERLAP_PROBE]
            at = previous.rfind(head) if len(head) >= OVERLAP_PROBE else -1
            state = split_units(previous[:at] if at > 0 else previous, state)[1]
        states.append(state)
    return states


def carried_heading(texts: Sequence[str], states: Sequence[str] | None = None) -> list[str]:
    """For each chunk of one document (in order), the heading line in force where it starts — its section's, else
    the document's title — as a Markdown heading, or "" when there is none or the chunk starts with a heading of its
    own: what relation extraction reads before a chunk that starts inside a section (a pronoun at its top stands
    for the name the heading gives). ``states``: ``start_states(texts)`` when the caller has them already."""
    out: list[str] = []
    for text, state in zip(texts, start_states(texts) if states is None else states):
        title, _, rest = state.partition("\x1f")
        section = rest.partition("\x1f")[0]
        lines = [line.strip() for line in text.strip().splitlines()]
        name = section or title
        starts_with_heading = bool(lines) and (bool(_HEADING.match(lines[0])) or _BRACKETED.match(lines[0]) is not None
                                               or plain_heading(lines, 0) is not None)
        out.append(f"## {name}" if name and not starts_with_heading else "")
    return out


def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def embed_units(embedder: Any, per_chunk: Sequence[list[Unit]]) -> list[np.ndarray]:
    """Vectors of the units of several chunks in one batched embedder call (float32, rows normalised)."""
    flat = [u.embed_text() for units in per_chunk for u in units]
    vectors = np.asarray(embedder.embed_documents(flat), dtype=np.float32) if flat else np.zeros((0, 0), np.float32)
    if len(flat):
        vectors = _normalise(vectors)
    out: list[np.ndarray] = []
    start = 0
    for units in per_chunk:
        out.append(vectors[start : start + len(units)])
        start += len(units)
    return out


def chunk_vector(units: Sequence[Unit], vectors: np.ndarray) -> list[float]:
    """A chunk's vector pooled from its units: the mean weighted by sentence length, normalised."""
    weights = np.asarray([max(1, len(u.text)) for u in units], dtype=np.float32)
    pooled = (vectors * weights[:, None]).sum(axis=0)
    norm = float(np.linalg.norm(pooled))
    return (pooled / norm if norm else pooled).astype(float).tolist()


def embed_chunks(embedder: Any, chunks: Sequence[Any], states: Sequence[str] | None = None
                 ) -> tuple[list[list[float]], list[tuple[str, str, str, list[Unit], np.ndarray]]]:
    """(chunk vectors, sentence rows for ``SentenceStore.write``) for ingest: every sentence of ``chunks`` embedded
    in one batched call; a chunk's vector is pooled from its sentences, so no chunk is embedded twice.

    ``chunks``: ``rag.types.Chunk`` objects of one document, in order — the whole document, or a batch of it with
    ``states``: their ``start_states``, worked out once over the whole document by the caller. A chunk with no
    sentence unit is embedded whole."""
    if states is None:
        states = start_states([c.text for c in chunks])  # where each chunk starts
    per_chunk: list[list[Unit]] = []
    for chunk, heading in zip(chunks, states):
        units = split_units(chunk.text, heading)[0]
        per_chunk.append(units or [Unit("", chunk.text.strip() or chunk.text or " ")])
    vectors = embed_units(embedder, per_chunk)
    rows = [(c.chunk_id, c.doc_id, c.text, units, v) for c, units, v in zip(chunks, per_chunk, vectors)]
    return [chunk_vector(units, v) for units, v in zip(per_chunk, vectors)], rows


class SentenceStore:
    """SQLite table of chunk id → units + float32 vectors (one short connection per call: thread-safe)."""

    def __init__(self, data_dir: Path | str) -> None:
        self.path = Path(data_dir) / DB_NAME

    def _connect(self) -> sqlite3.Connection:
        """A connection to a table that exists (the data directory may have been emptied meanwhile)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=30)
        conn.execute("""CREATE TABLE IF NOT EXISTS sentences (
            chunk_id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, embedder TEXT NOT NULL, text_hash TEXT NOT NULL,
            units TEXT NOT NULL, dim INTEGER NOT NULL, vectors BLOB NOT NULL)""")
        conn.execute("CREATE INDEX IF NOT EXISTS sentences_doc ON sentences(doc_id)")
        return conn

    def write(self, rows: Iterable[tuple[str, str, str, list[Unit], np.ndarray]], embedder_name: str) -> None:
        """rows: (chunk_id, doc_id, chunk text, units, vectors)."""
        records = []
        for chunk_id, doc_id, text, units, vectors in rows:
            vectors = np.asarray(vectors, dtype=np.float32)
            dim = int(vectors.shape[1]) if vectors.ndim == 2 and vectors.shape[0] else 0
            records.append((chunk_id, doc_id, embedder_name, text_hash(text),
                            json.dumps([[u.heading, u.text] for u in units], ensure_ascii=False), dim,
                            vectors.tobytes()))
        if not records:
            return
        with closing(self._connect()) as conn, conn:
            conn.executemany("INSERT OR REPLACE INTO sentences VALUES (?, ?, ?, ?, ?, ?, ?)", records)

    def get(self, chunks: dict[str, str], embedder_name: str) -> dict[str, ChunkSentences]:
        """``chunks``: chunk id → chunk text. Rows whose text or embedder differ are left out (stale)."""
        if not chunks:
            return {}
        ids = list(chunks)
        out: dict[str, ChunkSentences] = {}
        with closing(self._connect()) as conn:
            for start in range(0, len(ids), 500):
                part = ids[start : start + 500]
                rows = conn.execute(
                    f"SELECT chunk_id, embedder, text_hash, units, dim, vectors FROM sentences "
                    f"WHERE chunk_id IN ({','.join('?' * len(part))})", part).fetchall()
                for chunk_id, embedder, digest, units, dim, blob in rows:
                    if embedder != embedder_name or digest != text_hash(chunks[chunk_id]) or not dim:
                        continue
                    vectors = np.frombuffer(blob, dtype=np.float32).reshape(-1, dim)
                    out[chunk_id] = ChunkSentences([Unit(h, t) for h, t in json.loads(units)], vectors)
        return out

    def mentions(self, text: str, *also: str) -> bool:
        """True when some stored chunk's sentences or headings contain ``text`` (e.g. a year: does the knowledge base
        cover it?), and every one of ``also`` in the same chunk ("中国" with "首都": does it speak of China's capital?)."""
        patterns = ["%" + t.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" for t in (text, *also)]
        where = " AND ".join(["units LIKE ? ESCAPE '\\'"] * len(patterns))
        with closing(self._connect()) as conn:
            row = conn.execute(f"SELECT 1 FROM sentences WHERE {where} LIMIT 1", patterns).fetchone()
        return row is not None

    def doc_ids(self) -> set[str]:
        """The doc id of every stored row (``rag repair``'s sweep)."""
        with closing(self._connect()) as conn:
            return {r[0] for r in conn.execute("SELECT DISTINCT doc_id FROM sentences")}

    def delete_document(self, doc_id: str) -> None:
        with closing(self._connect()) as conn, conn:
            conn.execute("DELETE FROM sentences WHERE doc_id = ?", (doc_id,))

    def clear(self) -> None:
        with closing(self._connect()) as conn, conn:
            conn.execute("DELETE FROM sentences")

    def count(self) -> int:
        with closing(self._connect()) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM sentences").fetchone()[0])


_STORES: dict[str, SentenceStore] = {}
_STORES_LOCK = threading.Lock()


def store_for(data_dir: Path | str) -> SentenceStore:
    """One ``SentenceStore`` per data directory per process."""
    key = str(Path(data_dir).resolve())
    with _STORES_LOCK:
        if key not in _STORES:
            _STORES[key] = SentenceStore(data_dir)
        return _STORES[key]


# ---- every stored sentence of a knowledge base in one matrix (the sentence channel of retrieval) -------------------
LANGUAGES = ("en", "ko", "zh")


@dataclass
class LanguageStats:
    """The question's cosine with the knowledge base's sentences of each language: mean and standard deviation.

    The bundled e5 embedder scores any sentence in the question's own language higher than one in another language;
    a cosine read as a z-score within its sentence's language (``centre``) compares sentences across languages."""

    mean: dict[str, float]
    std: dict[str, float]
    counts: dict[str, int]

    def centre(self, sims: np.ndarray, langs: Sequence[str]) -> np.ndarray:
        """z-scores of ``sims`` (cosines of sentences whose languages are ``langs``)."""
        return self.centre_codes(np.asarray(sims, dtype=np.float32), language_codes(langs))

    def centre_mixed(self, sims: np.ndarray, texts: Sequence[str], own: str) -> np.ndarray:
        """``centre`` of the sentences ``texts`` for a question in language ``own``, where a sentence of another
        language that writes some of its letters in the question's script is centred partly as the question's
        language, by that share (``script_mix``): a Korean sentence that names a company in Chinese characters
        ("청두 蓉光影业과 … 협약 체결") sits closer to a Chinese question than the Korean sentences it would be centred with
        alone, by those characters, not by its meaning. Every other sentence is centred as ``centre`` centres it."""
        codes = language_codes([script_language(t) for t in texts])
        return self.centre_codes(np.asarray(sims, dtype=np.float32), codes, script_mix(texts), own)

    def centre_codes(self, sims: np.ndarray, codes: np.ndarray, mix: np.ndarray | None = None,
                     own: str = "") -> np.ndarray:
        """``centre`` for rows given as language codes (indices into ``LANGUAGES``), vectorised; with the rows'
        script shares (``script_mix``) and the question's language, as ``centre_mixed``."""
        mu = np.asarray([self.mean.get(lang, self.mean.get("en", 0.0)) for lang in LANGUAGES], dtype=np.float32)
        sd = np.asarray([self.std.get(lang, self.std.get("en", 1.0)) for lang in LANGUAGES], dtype=np.float32)
        if mix is None or own not in LANGUAGES:
            return (sims - mu[codes]) / sd[codes]
        k = LANGUAGES.index(own)
        w = np.where(codes != k, mix[:, k], 0.0).astype(np.float32)
        return (sims - ((1 - w) * mu[codes] + w * mu[k])) / ((1 - w) * sd[codes] + w * sd[k])


def language_codes(langs: Sequence[str]) -> np.ndarray:
    """Script languages as codes (indices into ``LANGUAGES``)."""
    return np.asarray([LANGUAGES.index(lang) for lang in langs], dtype=np.int8)


def script_mix(texts: Sequence[str]) -> np.ndarray:
    """Each text's share of letters per script language (``textutil.script_shares``), one row per text, one column
    per ``LANGUAGES`` entry; a row of zeros for a text without letters."""
    mix = np.zeros((len(texts), len(LANGUAGES)), dtype=np.float32)
    for i, text in enumerate(texts):
        for lang, w in script_shares(text).items():
            mix[i, LANGUAGES.index(lang)] = w
    return mix


class SentenceMatrix:
    """Every sentence vector of the committed documents of one knowledge-base revision, in one float32 matrix.

    ``rows_chunk[i]``: index into ``chunk_ids`` of sentence row ``i``; ``langs``: the script language of each row
    (language code per row as an index into ``LANGUAGES``). Built once per revision (``matrix_for``)."""

    def __init__(self, chunk_ids: list[str], units: list[Unit], rows_chunk: np.ndarray, vectors: np.ndarray) -> None:
        self.chunk_ids = chunk_ids
        self.units = units
        self.rows_chunk = rows_chunk
        self.vectors = vectors
        codes = language_codes([script_language(u.text) for u in units])
        self.lang_codes = codes
        # rows are grouped by chunk: the first row of each chunk (for the best sentence per chunk, np.maximum.reduceat)
        self.chunk_starts = (np.flatnonzero(np.r_[True, rows_chunk[1:] != rows_chunk[:-1]]) if len(rows_chunk)
                             else np.zeros(0, np.int64))
        self.lang_rows = {lang: np.flatnonzero(codes == k) for k, lang in enumerate(LANGUAGES)}
        self.script_mix = script_mix([u.text for u in units])  # for LanguageStats.centre_codes

    def __len__(self) -> int:
        return len(self.units)

    def stats(self, sims: np.ndarray, min_count: int, min_std: float, fallback: dict[str, float] | None = None,
              default_offset: float = 0.0, default_std: float = 1.0) -> LanguageStats:
        """Per-language mean / std of ``sims`` (the question against every row). A language with fewer than
        ``min_count`` sentences (a small knowledge base: the z-scores of a dozen sentences are compressed) borrows:
        its mean is ``fallback[lang]`` (the question's floor in that language from everyday sentences) plus the
        average offset (KB mean − floor) of the languages that have enough sentences, else ``default_offset``; its
        spread is their pooled spread, else ``default_std``."""
        mean: dict[str, float] = {}
        std: dict[str, float] = {}
        counts = {lang: int(len(rows)) for lang, rows in self.lang_rows.items()}
        offsets: list[float] = []
        stds: list[float] = []
        for lang, rows in self.lang_rows.items():
            if len(rows) >= min_count:
                s = sims[rows]
                mean[lang] = float(s.mean())
                std[lang] = max(min_std, float(s.std()))
                stds.append(std[lang])
                if fallback and lang in fallback:
                    offsets.append(mean[lang] - fallback[lang])
        pooled_std = float(np.mean(stds)) if stds else default_std
        offset = float(np.mean(offsets)) if offsets else default_offset
        for lang in LANGUAGES:
            if lang not in mean:
                mean[lang] = (fallback or {}).get(lang, 0.0) + offset
                std[lang] = pooled_std
        return LanguageStats(mean, std, counts)


_MATRICES: dict[tuple[str, str], tuple[int, SentenceMatrix]] = {}
_MATRICES_LOCK = threading.Lock()


def load_matrix(data_dir: Path | str, embedder_name: str, committed: Iterable[str]) -> SentenceMatrix:
    """Every stored sentence of the ``committed`` documents (one read of the sentence table)."""
    keep = set(committed)
    chunk_ids: list[str] = []
    units: list[Unit] = []
    parts: list[np.ndarray] = []
    owners: list[np.ndarray] = []
    store = store_for(data_dir)
    with closing(store._connect()) as conn:
        rows = conn.execute("SELECT chunk_id, doc_id, units, dim, vectors FROM sentences WHERE embedder = ? "
                            "ORDER BY chunk_id", (embedder_name,))
        dims: set[int] = set()
        for chunk_id, doc_id, unit_json, dim, blob in rows:
            if doc_id not in keep or not dim:
                continue
            vectors = np.frombuffer(blob, dtype=np.float32).reshape(-1, dim)
            listed = json.loads(unit_json)
            if len(listed) != len(vectors):
                continue
            dims.add(int(dim))
            owners.append(np.full(len(vectors), len(chunk_ids), dtype=np.int32))
            chunk_ids.append(chunk_id)
            units.extend(Unit(h, t) for h, t in listed)
            parts.append(vectors)
    if len(dims) > 1:  # rows of another dimension (a changed embedder under the same name): keep the common one
        common = max(dims, key=lambda d: sum(len(p) for p in parts if p.shape[1] == d))
        keep_idx = [i for i, p in enumerate(parts) if p.shape[1] == common]
        flat_units: list[Unit] = []
        starts = np.cumsum([0] + [len(p) for p in parts])
        for i in keep_idx:
            flat_units.extend(units[starts[i]:starts[i + 1]])
        parts = [parts[i] for i in keep_idx]
        owners = [np.full(len(parts[k]), k, dtype=np.int32) for k in range(len(keep_idx))]
        chunk_ids = [chunk_ids[i] for i in keep_idx]
        units = flat_units
    matrix = np.concatenate(parts) if parts else np.zeros((0, 1), np.float32)
    rows_chunk = np.concatenate(owners) if owners else np.zeros(0, np.int32)
    return SentenceMatrix(chunk_ids, units, rows_chunk, np.ascontiguousarray(matrix, dtype=np.float32))


def matrix_for(data_dir: Path | str, embedder_name: str, revision: int, committed: Iterable[str]) -> SentenceMatrix:
    """The sentence matrix of a knowledge base at ``revision``, loaded once per revision per process (readers
    reload when another ingest or delete moved the revision)."""
    key = (str(Path(data_dir).resolve()), embedder_name)
    with _MATRICES_LOCK:
        cached = _MATRICES.get(key)
        if cached is not None and cached[0] == revision:
            return cached[1]
    matrix = load_matrix(data_dir, embedder_name, committed)
    with _MATRICES_LOCK:
        _MATRICES[key] = (revision, matrix)
    return matrix


def cached_matrix(data_dir: Path | str, embedder_name: str) -> SentenceMatrix | None:
    """The matrix last loaded for this knowledge base in this process (None when none was)."""
    with _MATRICES_LOCK:
        cached = _MATRICES.get((str(Path(data_dir).resolve()), embedder_name))
    return cached[1] if cached else None


_ANCHOR_VECTORS: dict[str, dict[str, np.ndarray]] = {}


def language_floor(embedder: Any, question_vector: np.ndarray, anchors: dict[str, Sequence[str]]) -> dict[str, float]:
    """The question's mean cosine with everyday sentences of each language (``anchors``: language → sentences;
    embedded once per embedder per process)."""
    name = str(getattr(embedder, "name", type(embedder).__name__))
    if name not in _ANCHOR_VECTORS:
        langs = list(anchors)
        flat = [t for lang in langs for t in anchors[lang]]
        vectors = embed_units(embedder, [[Unit("", t) for t in flat]])[0]
        out, start = {}, 0
        for lang in langs:
            out[lang] = vectors[start : start + len(anchors[lang])]
            start += len(anchors[lang])
        _ANCHOR_VECTORS[name] = out
    q = np.asarray(question_vector, dtype=np.float32)
    return {lang: float((v @ q).mean()) if v.shape[1] == q.shape[0] else 0.0
            for lang, v in _ANCHOR_VECTORS[name].items()}
