"""The offline decision engine: transparent rules and scores, no language model.

- classify: keyword rules in a fixed order (direct → web → graph → vector); the rule that fired and
  the words it matched are the reason and go into ``Decision.signals``.
- grade: CRAG labels from embedding similarity (rescaled to the embedder's usual range) plus key-term
  coverage; numbers and years of the question are hard requirements for "correct", and a chunk that
  shares none of the question's content words is "incorrect" however similar it looks.
- evaluate: context quality from the best supporting document, the key-term coverage of all supporting
  documents together, and the share of supporting documents.
- rewrite: keep the key terms, then add glossary translations, then terms of ambiguous documents.
- generate: extractive — sentences copied from the documents, numbered citations, never invented text.
"""
from __future__ import annotations

import ast
import math
import operator
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Sequence

from rag.config import Settings
from rag.textutil import key_terms, normalize_query, split_sentences, tokenize
from rag.types import Answer, Citation, Decision, Extraction, Grade, Quality, Retrieved, Rewrite

# --------------------------------------------------------------------------------------------------
# Rule tables
# --------------------------------------------------------------------------------------------------

RECENT_YEAR_FROM = 2025  # a year from here on is treated as "after the documents were written" → web

TEMPORAL_MARKERS = (
    # English
    "latest", "most recent", "recent", "recently", "today", "tonight", "yesterday", "this year", "this month",
    "this week", "current", "currently", "nowadays", "right now", "news", "up to date", "up-to-date",
    "breaking", "trending",
    # Korean
    "최신", "최근", "오늘", "어제", "올해", "금년", "현재", "요즘", "이번 주", "이번주", "이번 달", "이번달",
    "지금", "뉴스", "실시간",
    # Chinese
    "最新", "最近", "今天", "昨天", "今年", "本周", "这周", "本月", "目前", "现在", "当前", "新闻", "近期",
)

TRANSLATION_MARKERS = (
    "translate", "translation", "in english", "into english", "in korean", "into korean", "in chinese",
    "into chinese", "번역", "영어로", "한국어로", "한글로", "중국어로", "영문으로", "翻译", "译成", "翻成",
    "用英文", "用英语", "用韩语", "用中文", "英文怎么说", "英语怎么说",
)

CODE_PATTERNS = (
    r"(python|파이썬|javascript|java|sql|bash|rust|golang|typescript)\s*(에서|으로|로)\s*.*(방법|어떻게|하려면|코드|문법)",
    r"(python|파이썬|javascript|java|sql|bash|rust|golang|typescript)\s*(코드|문법|구문)",
    r"\bhow (do|can|would|should) (i|you|we)\b.*\b(in|with|using) (python|javascript|java|sql|bash|rust|go|typescript)\b",
    r"\b(python|javascript|java|sql|bash|rust|typescript) (syntax|code|snippet|one-liner)\b",
    r"\bsyntax (of|for)\b",
    r"(用|在)\s*(python|java|javascript|sql)\s*.*(怎么|如何|代码|语法)",
    r"(python|java|javascript|sql)\s*(中|里)\s*.*(怎么|如何)",
)

ARITHMETIC_PATTERNS = (
    r"\d\s*[+*/×÷^]\s*\(?\s*\d",
    r"\d\s+-\s+\d",
    r"\d\s*(더하기|빼기|곱하기|나누기)\s*\d",
    r"\d\s*(plus|minus|times|multiplied by|divided by)\s*\d",
    r"\d\s*(加|减|乘以|除以)\s*\d",
    r"(sqrt|제곱근|平方根)\s*\(?\s*\d",
)
# "리스트 [4, 8, 15]의 평균", "the sum of [1, 2, 3]": an aggregate over a literal list of numbers
NUMBER_LIST = re.compile(r"[\[(]\s*-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?)+\s*[\])]")
AGGREGATES: tuple[tuple[str, str], ...] = (
    (r"평균|average|mean|平均", "average"), (r"합계|합|총합|sum|total|总和|合计", "sum"),
    (r"최댓값|최대|가장 큰|max|maximum|largest|最大", "max"), (r"최솟값|최소|가장 작은|min|minimum|smallest|最小", "min"),
    (r"중앙값|median|中位数", "median"),
)


def list_aggregate(question: str) -> tuple[str, list[float]] | None:
    """('average', [4, 8, ...]) when the question asks for an aggregate of a literal number list."""
    m = NUMBER_LIST.search(question)
    if not m:
        return None
    q = question.lower()
    for pattern, name in AGGREGATES:
        if re.search(pattern, q):
            return name, [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", m.group(0))]
    return None

RELATION_MARKERS = (
    # Korean
    "관계", "연관", "관련이", "누가 만들", "누가 개발", "누가 이끄", "누가 담당", "어느 조직", "어느 팀", "어떤 팀",
    "무슨 팀", "어느 회사", "소속", "연결", "사이", "담당하는 팀", "이끄는", "이끄는 팀", "맡고 있는", "속한", "출신",
    # English
    "between", "related to", "relationship", "relation", "connected", "connection", "who developed", "who created",
    "who built", "who made", "who leads", "who owns", "who runs", "which organization", "which organisation",
    "which company", "which team", "what team", "belongs to", "belong to", "works for", "reports to",
    "how is", "link between",
    # Chinese
    "关系", "谁开发", "谁创建", "谁负责", "哪个组织", "哪个团队", "哪个公司", "属于", "之间", "联系",
)
# Entity names too generic to count as "a known graph entity in the question".
STOP_ENTITY_NAMES = frozenset({"ai", "it", "team", "teams", "팀", "회사", "company", "model", "모델", "people",
                               "service", "product", "제품", "조직", "organization", "user", "users", "data"})


def _specific(name: str) -> bool:
    """An entity name specific enough to anchor a question ("Orbit", not "Team")."""
    n = _norm(name).strip()
    return len(n) >= 2 and n not in STOP_ENTITY_NAMES
# "X를 개발한 조직은 …", "the team that owns X": an entity described through a relation, then asked about
RELATIVE_HOP_PATTERN = re.compile(
    r"[가-힣]+(?:한|은|는|던|된)\s+(?:조직|팀|회사|연구자|연구진|기관|부서|연구소|사람|저자|개발자|팀장|곳)"
    r"|\b(?:team|company|organi[sz]ation|person|researcher|group|lab|department|people)\s+(?:that|which|who)\b")
# A question for a value or parameter is a factual lookup (seed 000: "vector — definitions, parameters")
VALUE_QUESTION = re.compile(
    r"\b(what|which) (value|number|parameter|setting|version)s?\b|\bhow (many|much|long|often|big)\b"
    r"|\b(value|parameter)s? of\b|몇|얼마|며칠|값은|값이|파라미터|매개변수|설정값|多少|几|参数|数值")
CHAIN_PATTERN = re.compile(r"\S+의\s+\S+의\s+")  # "A의 B의 C": a path through two relations
HOW_CONNECTED = re.compile(r"\bhow (is|are) .+ (connected|related|linked) (to|with)\b")

# Which relation a question asks about ("어느 도시" → located_in): graph facts whose predicate fills an asked
# relation count its cue word as covered, so "Hanbit Research는 대전에 있다" answers "어느 도시" without the word "도시".
RELATION_SLOTS: tuple[tuple[str, str], ...] = (
    ("located_in", r"도시|어디|위치|본사|지역|소재|city|where|located|based|headquarter|哪里|位于|城市"),
    ("leads", r"팀장|이끄|이끌|리더|책임자|대표|lead|head|manager|ceo|负责人|领导"),
    ("belongs_to", r"소속|대학|출신|교수|구성원|member|belong|works? (?:at|for)|universit|affiliat|professor|属于|大学"),
    ("developed_by", r"개발|만든|만들|제안|발표|공개|developed|built|created|made|proposed|invented|开发|提出"),
    ("founded_by", r"설립|창업|창립|founded|founder|创立|创始"),
    ("owns", r"담당|맡|운영|소유|owns?|responsible|maintain|runs?|operat|负责"),
    ("uses", r"사용|쓰는|uses?|using|使用"),
    ("part_of", r"일부|속한|part of|部分"),
)


def asked_relations(question: str) -> set[str]:
    q = question.lower()
    return {pred for pred, cue in RELATION_SLOTS if re.search(cue, q)}


def _slot_term(term: str, predicate: str) -> bool:
    """True when the question term is a cue for the fact's predicate ("도시" for located_in)."""
    for pred, cue in RELATION_SLOTS:
        if pred == predicate and re.search(cue, term):
            return True
    return False


# ko / en / zh glossary of common RAG / ML / workplace terms: translation in direct mode, cross-lingual
# key-term matching in grading, and query expansion in rewrite.
GLOSSARY: tuple[tuple[str, str, str], ...] = (
    ("retrieval-augmented generation", "검색 증강 생성", "检索增强生成"),
    ("retrieval", "검색", "检索"),
    ("search", "검색", "搜索"),
    ("generation", "생성", "生成"),
    ("embedding", "임베딩", "嵌入"),
    ("embedding model", "임베딩 모델", "嵌入模型"),
    ("vector", "벡터", "向量"),
    ("vector database", "벡터 데이터베이스", "向量数据库"),
    ("knowledge base", "지식 베이스", "知识库"),
    ("knowledge graph", "지식 그래프", "知识图谱"),
    ("graph", "그래프", "图"),
    ("language model", "언어 모델", "语言模型"),
    ("large language model", "대규모 언어 모델", "大语言模型"),
    ("hallucination", "환각", "幻觉"),
    ("query rewriting", "쿼리 재작성", "查询重写"),
    ("query", "쿼리", "查询"),
    ("reranking", "재순위화", "重排序"),
    ("reranker", "리랭커", "重排序模型"),
    ("chunk", "청크", "文本块"),
    ("chunking", "청킹", "分块"),
    ("document", "문서", "文档"),
    ("question", "질문", "问题"),
    ("answer", "답변", "答案"),
    ("evaluation", "평가", "评估"),
    ("agent", "에이전트", "智能体"),
    ("router", "라우터", "路由器"),
    ("threshold", "임계값", "阈值"),
    ("context", "컨텍스트", "上下文"),
    ("prompt", "프롬프트", "提示词"),
    ("fine-tuning", "파인튜닝", "微调"),
    ("inference", "추론", "推理"),
    ("token", "토큰", "词元"),
    ("model", "모델", "模型"),
    ("index", "색인", "索引"),
    ("hybrid search", "하이브리드 검색", "混合检索"),
    ("machine learning", "머신러닝", "机器学习"),
    ("deep learning", "딥러닝", "深度学习"),
    ("artificial intelligence", "인공지능", "人工智能"),
    ("neural network", "신경망", "神经网络"),
    ("dataset", "데이터셋", "数据集"),
    ("training", "학습", "训练"),
    ("minimum wage", "최저임금", "最低工资"),
    ("salary", "연봉", "年薪"),
    ("contract", "계약", "合同"),
    ("bonus", "성과급", "奖金"),
    ("annual leave", "연차", "年假"),
    ("vacation", "휴가", "休假"),
    ("company", "회사", "公司"),
    ("headquarters", "본사", "总部"),
    ("team", "팀", "团队"),
    ("team lead", "팀장", "团队负责人"),
    ("product", "제품", "产品"),
    ("founder", "창업자", "创始人"),
    ("ceo", "대표이사", "首席执行官"),
    ("research", "연구", "研究"),
    ("research lab", "연구소", "研究所"),
    ("employee", "임직원", "员工"),
    ("employees", "직원", "员工"),
    ("customer", "고객", "客户"),
    ("security", "보안", "安全"),
    ("password", "비밀번호", "密码"),
    ("policy", "규정", "政策"),
    ("news", "뉴스", "新闻"),
    ("price", "가격", "价格"),
    ("year", "년", "年"),
    ("founded", "설립", "成立"),
    ("established", "설립", "成立"),
    ("developed", "개발", "开发"),
    ("leads", "이끈", "领导"),
)

# Same-language near-synonyms used in key-term matching only.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "일주일": ("주", "매주", "week", "weekly"), "한달": ("매월", "월", "month"), "매년": ("연간", "yearly", "annually"),
    "비용": ("가격", "요금", "price", "cost"), "가격": ("비용", "요금", "price", "cost"), "cost": ("price", "fee"),
    "price": ("cost", "fee"), "팀장": ("lead", "leads", "이끈다", "이끄"), "lead": ("팀장", "leads"),
    "leads": ("lead", "팀장", "이끈"), "도시": ("시", "city"), "city": ("도시",), "대학": ("university", "대학교"),
    "university": ("대학", "대학교"), "연구자": ("researcher", "연구진", "교수", "professor"),
}

CODE_RECIPES: tuple[tuple[tuple[str, ...], tuple[str, ...], str, str], ...] = (
    # (words that must all appear (any of each group, joined by |), title, code)
    (("average|mean|평균|平均",), (), "average of a list",
     "numbers = [3, 5, 8]\naverage = sum(numbers) / len(numbers)  # statistics.mean(numbers) also works"),
    (("reverse|뒤집|거꾸로|역순|反转|倒序",), ("string|str|문자열|字符串",), "reverse a string",
     "text = \"hello\"\nreversed_text = text[::-1]"),
    (("reverse|뒤집|거꾸로|역순|反转|倒序",), ("list|리스트|列表",), "reverse a list",
     "items = [1, 2, 3]\nitems.reverse()          # in place\nbackwards = items[::-1]  # a reversed copy"),
    (("read|읽|读取",), ("file|파일|文件",), "read a text file",
     "from pathlib import Path\ntext = Path(\"notes.txt\").read_text(encoding=\"utf-8\")\n"
     "with open(\"notes.txt\", encoding=\"utf-8\") as f:\n    for line in f:\n        print(line.rstrip())"),
    (("write|쓰기|저장|写入",), ("file|파일|文件",), "write a text file",
     "from pathlib import Path\nPath(\"out.txt\").write_text(\"hello\\n\", encoding=\"utf-8\")"),
    (("dict|딕셔너리|사전|字典",), ("iterate|loop|순회|반복|for|遍历",), "iterate over a dict",
     "scores = {\"a\": 1, \"b\": 2}\nfor key, value in scores.items():\n    print(key, value)"),
    (("sort|정렬|排序",), (), "sort a list",
     "items = [3, 1, 2]\nitems.sort()                    # in place\nranked = sorted(items, reverse=True)  # a new list"),
    (("duplicate|중복|去重|重复",), (), "remove duplicates, keeping order",
     "items = [1, 2, 2, 3, 1]\nunique = list(dict.fromkeys(items))"),
    (("json",), (), "read and write JSON",
     "import json\ndata = json.loads('{\"a\": 1}')\ntext = json.dumps(data, ensure_ascii=False, indent=2)"),
    (("length|len|길이|长度",), (), "length of a list or string",
     "len([1, 2, 3])  # 3\nlen(\"hello\")    # 5"),
)

FRAMES: dict[str, dict[str, str]] = {
    "ko": {
        "conclusion": "결론", "evidence": "근거", "sources": "출처", "uncertainty": "불확실성",
        "abstain": "문서에서 근거를 찾지 못했습니다.",
        "abstain_hint": "검색된 문서 중 질문에 답하는 문서가 없습니다. 문서를 추가하거나 질문을 바꿔 보세요.",
        "all_covered": "질문의 핵심어가 모두 근거 문장에 있습니다. 문장을 그대로 발췌했으며 추론은 더하지 않았습니다.",
        "missing": "근거 문장에 없는 핵심어: {terms}. 이 부분은 문서로 확인되지 않았습니다.",
        "ambiguous_only": "질문과 일부만 맞는(애매한) 문서에서 발췌했습니다. 그대로 믿기 전에 출처를 확인하세요.",
        "found": "문서에서 확인한 것", "not_found": "문서에서 찾지 못한 것",
        "partial_note": "시도 한도 안에서 충분한 근거를 찾지 못해, 확인된 부분만 답합니다.",
        "no_docs": "검색된 문서가 없습니다.",
    },
    "en": {
        "conclusion": "Conclusion", "evidence": "Evidence", "sources": "Sources", "uncertainty": "Uncertainty",
        "abstain": "Not found in the documents.",
        "abstain_hint": "None of the retrieved documents answers the question. Add documents or rephrase it.",
        "all_covered": "Every key term of the question appears in the evidence; sentences are quoted as written, "
                       "nothing was inferred.",
        "missing": "Key terms missing from the evidence: {terms}. That part is not confirmed by the documents.",
        "ambiguous_only": "Quoted from documents that only partly match the question (ambiguous); check the sources.",
        "found": "Found in the documents", "not_found": "Not found in the documents",
        "partial_note": "The attempt budget ran out before enough evidence was found; only the confirmed part "
                        "is answered.",
        "no_docs": "No documents were retrieved.",
    },
    "zh": {
        "conclusion": "结论", "evidence": "依据", "sources": "来源", "uncertainty": "不确定性",
        "abstain": "在文档中没有找到依据。",
        "abstain_hint": "检索到的文档都不能回答这个问题。请添加文档或换一种问法。",
        "all_covered": "问题的所有关键词都出现在依据句子中；句子按原文摘录，没有推断。",
        "missing": "依据中缺少的关键词：{terms}。这部分没有被文档证实。",
        "ambiguous_only": "摘自只与问题部分相关的文档（模糊），请核对来源。",
        "found": "文档中找到的", "not_found": "文档中没有找到的",
        "partial_note": "在尝试次数内没有找到足够的依据，只回答已确认的部分。",
        "no_docs": "没有检索到文档。",
    },
}

# Similarity ranges in which each embedder family spreads "unrelated" .. "on topic" (rescaled to 0..1).
# multilingual-e5 compresses cosine similarities into roughly 0.75-0.95.
SIMILARITY_RANGES = {"e5": (0.80, 0.92), "openai": (0.20, 0.60), "default": (0.30, 0.80)}


@dataclass
class OfflineRules:
    """Thresholds of the offline engine (shown by ``describe()``)."""

    sim_weight: float = 0.45  # grade score = sim_weight * rescaled similarity + (1 - sim_weight) * coverage
    correct_score: float = 0.60  # grade score needed for "correct" ...
    correct_coverage: float = 0.50  # ... plus this key-term coverage, plus every number of the question
    ambiguous_score: float = 0.35  # below this: "incorrect"
    graph_hop_weight: float = 0.15  # graph facts: score divided by 1 + w * (hop - 1)
    quality_best: float = 0.50  # quality = best * support-weighted best grade score
    quality_coverage: float = 0.35  # + coverage * key-term coverage of the supporting documents together
    quality_share: float = 0.15  # + share * support-weighted share of documents
    ambiguous_support: float = 0.5  # an ambiguous document counts half in evaluate
    max_evidence: int = 3  # sentences quoted in an answer
    recent_year_from: int = RECENT_YEAR_FROM


# --------------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------------

_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def language_of(text: str) -> str:
    """'ko' when the text has Hangul, 'zh' when it has Chinese characters, else 'en'."""
    if _HANGUL.search(text):
        return "ko"
    if _HAN.search(text):
        return "zh"
    return "en"


def _norm(text: str) -> str:
    return _THOUSANDS.sub("", unicodedata.normalize("NFKC", text).lower())


def _is_number(term: str) -> bool:
    return bool(_NUMBER.match(term))


# Aggregation words: a question asking for an average / total needs that statistic in the text (seed 002:
# aggregation questions are answered by tables, not by a policy that merely mentions the topic).
STATISTIC_TERMS = frozenset("평균 합계 총합 총계 비율 중앙값 통계 average mean median total sum percentage ratio "
                            "statistics 平均 总计 合计 比例 中位数 统计".split())


def _is_required(term: str) -> bool:
    """Numbers, years and statistics of the question must be in a document graded correct."""
    return _is_number(term) or term in STATISTIC_TERMS


def _contains_phrase(norm_text: str, phrase: str) -> bool:
    phrase = _norm(phrase)
    if not phrase:
        return False
    if re.fullmatch(r"[a-z0-9][a-z0-9 .\-_]*", phrase):  # Latin: whole words only ("rag" not in "crag")
        return re.search(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])", norm_text) is not None
    return phrase in norm_text


def _glossary_translations(term: str) -> list[str]:
    """Other-language forms of a term from the glossary (term in any of the three languages)."""
    t = _norm(term)
    out: list[str] = []
    for row in GLOSSARY:
        forms = [_norm(f) for f in row]
        if t in forms:
            out.extend(f for f in forms if f != t and f not in out)
    return out


class _Text:
    """A text prepared once for key-term matching."""

    def __init__(self, text: str) -> None:
        self.raw = text
        self.norm = _norm(text)
        self.tokens = set(tokenize(text))

    def match(self, term: str) -> tuple[float, str]:
        """(credit 0..1, how) for one key term: exact 1.0, glossary translation 1.0, partial Korean 0.5."""
        if _is_number(term):
            hit = re.search(rf"(?<![\d.]){re.escape(term)}(?![\d])", self.norm) is not None
            return (1.0, "exact") if hit else (0.0, "")
        if term in self.tokens or _contains_phrase(self.norm, term):
            return 1.0, "exact"
        for other in _glossary_translations(term) + list(SYNONYMS.get(term, ())):
            if len(other) == 1 and _HANGUL.search(other):
                if other in self.tokens:  # one syllable: whole words only
                    return 1.0, f"via '{other}'"
            elif _contains_phrase(self.norm, other):
                return 1.0, f"via '{other}'"
        if len(term) >= 3 and (_HANGUL.search(term) or _HAN.search(term)):
            grams = [term[i : i + 2] for i in range(len(term) - 1)]
            share = sum(1 for g in grams if g in self.norm) / len(grams)
            if share >= 0.67:
                return 0.5, "partly"
        return 0.0, ""


@dataclass
class Coverage:
    terms: list[str]
    credit: dict[str, float]
    how: dict[str, str]
    focus: set[str] | None = None  # terms of the asking clause; None: all terms

    @property
    def content_terms(self) -> list[str]:
        """Non-number terms of the asking clause."""
        return [t for t in self.terms if not _is_number(t) and (self.focus is None or t in self.focus)]

    @property
    def numbers(self) -> list[str]:
        return [t for t in self.terms if _is_number(t)]

    def weight(self, term: str) -> float:
        if _is_number(term):
            return 2.0
        return 1.0 if self.focus is None or term in self.focus else 0.5

    @property
    def score(self) -> float:
        total = sum(self.weight(t) for t in self.terms)
        return sum(self.weight(t) * self.credit.get(t, 0.0) for t in self.terms) / total if total else 0.0

    @property
    def content_hits(self) -> int:
        return sum(1 for t in self.content_terms if self.credit.get(t, 0.0) > 0)

    @property
    def covered(self) -> list[str]:
        return [t for t in self.terms if self.credit.get(t, 0.0) > 0]

    @property
    def missing(self) -> list[str]:
        return [t for t in self.terms if self.credit.get(t, 0.0) <= 0]

    @property
    def missing_numbers(self) -> list[str]:
        """Required terms (numbers, years, statistics) the text lacks."""
        return [t for t in self.terms if _is_required(t) and self.credit.get(t, 0.0) <= 0]

    def summary(self) -> str:
        hits = sum(self.credit.get(t, 0.0) for t in self.terms)
        covered = ", ".join(f"'{t}'" + (f" {self.how[t]}" if self.how.get(t, "exact") != "exact" else "")
                            for t in self.covered)
        hits_s = f"{hits:g}" if hits != int(hits) else str(int(hits))
        return f"key-term coverage {hits_s}/{len(self.terms)}" + (f" ({covered})" if covered else "")


# Korean endings stripped from a question's key terms so that "판정되면", "갱신해", "팀의" meet "판정", "갱신", "팀".
# Long endings always; verb endings only from stems of 2+ syllables; particles only from 2-syllable words
# (textutil already strips them from longer ones) — "휴가" and "문서" stay whole.
_KO_LONG_ENDINGS = tuple(sorted((
    "하려고", "하는데", "하다고", "되다고", "다고", "되면", "하면", "하고", "해야", "했는지", "하는지", "는지", "인지",
    "해서", "까지", "했던", "되는",
), key=len, reverse=True))
_KO_VERB_ENDINGS = ("해", "했", "되", "면", "고", "야")
_KO_PARTICLES = ("이", "의", "에", "을", "를", "은", "는")
_FILLER_PREFIXES = ("얼마", "며칠", "몇", "뭐", "무엇", "어떻", "누구", "어디", "언제", "어느", "어떤", "왜")
_FILLER_WORDS = frozenset(
    "있 있어 있을 있을까 있나 없 알 알려 할 하 되 수 년 월 일 하는데 하려고 주세요 싶 싶어 궁금 생각 "
    "much many use uses used using does "
    "value values thing things way kind".split())
# clause ends: a comma or semicolon (not inside a number list "4, 8"), Korean "…는데 / …지만", English "and / but"
_CLAUSE_SPLIT = re.compile(r"(?<!\d)[,;，；]|[,;，；](?!\s*-?\d)|(?<=[가-힣])(?:는데|인데|지만)(?=[\s,])|\s(?:and|but)\s")
_QUESTION_CUES = re.compile(
    r"[?？]|얼마|며칠|몇|무엇|뭐|누구|누가|어디|언제|어느|어떤|어떻게|왜|"
    r"\b(what|which|who|whom|whose|when|where|why|how)\b|什么|哪|谁|多少|几|怎么|如何|为什么")


def _stem(term: str) -> str:
    if not _HANGUL.search(term) or not term.isalpha():
        return term
    for ending in _KO_LONG_ENDINGS:
        if term.endswith(ending) and len(term) > len(ending):
            return term[: -len(ending)]
    if len(term) >= 3 and term.endswith(_KO_VERB_ENDINGS):
        return term[:-1]
    if len(term) == 2 and term.endswith(_KO_PARTICLES):
        return term[:-1]
    return term


def question_terms(question: str) -> tuple[list[str], set[str]]:
    """(key terms of the question, the ones in its asking clause).

    Key terms come from ``textutil.key_terms``; Korean endings are stripped and filler words (question
    stems like 얼마/며칠, "있어", "much") dropped. The asking clause is the clause with the question word;
    a lead-in clause ("연봉 계약할 때 참고하려고 하는데, …") only adds context.
    """
    def clean(text: str) -> list[str]:
        out: list[str] = []
        for t in key_terms(text):
            t = _stem(t)
            if not t or t in _FILLER_WORDS or t.startswith(_FILLER_PREFIXES) or t in out:
                continue
            out.append(t)
        return out

    terms = clean(question)
    clauses = [c for c in _CLAUSE_SPLIT.split(question) if c and c.strip()]
    asking = [c for c in clauses if _QUESTION_CUES.search(c.lower())]
    if len(clauses) < 2 or not asking or len(asking) == len(clauses):
        return terms, set(terms)
    focus = {t for c in asking for t in clean(c)}
    return terms, focus or set(terms)


def coverage_of(terms: Sequence[str], text: str | _Text, focus: set[str] | None = None) -> Coverage:
    prepared = text if isinstance(text, _Text) else _Text(text)
    credit: dict[str, float] = {}
    how: dict[str, str] = {}
    for t in terms:
        credit[t], how[t] = prepared.match(t)
    return Coverage(list(terms), credit, how, focus)


def _fact_coverage(terms: Sequence[str], focus: set[str] | None, doc: Retrieved) -> Coverage:
    """Coverage of a graph fact: its text, plus relation cue words its predicate answers ("도시" by located_in)."""
    cov = coverage_of(terms, _doc_text_for_grading(doc), focus)
    triple = (doc.metadata or {}).get("triple") or []
    if len(triple) == 3:
        for t in terms:
            if cov.credit.get(t, 0.0) < 1.0 and _slot_term(t, triple[1]):
                cov.credit[t], cov.how[t] = 1.0, f"via relation {triple[1]}"
    return cov


def graph_path(question: str, docs: Sequence[Retrieved],
               supports: Sequence[float]) -> tuple[dict[str, float], float, list[int]]:
    """Which asked relations are filled by facts connected to an entity of the question.

    Start from the entities named in the question; follow supporting facts (grade correct / ambiguous) whose
    relation is asked, or generic ``related_to`` facts; a reached fact with an asked relation fills it (credit 1);
    a ``related_to`` fact on the path fills one still-missing relation at half credit.
    Returns ({relation: credit}, mean credit over the asked relations, positions of the path's facts in order).
    """
    asked = asked_relations(question)
    q = _norm(question)
    facts: list[tuple[int, str, str, str]] = []
    start: set[str] = set()
    for pos, (doc, s) in enumerate(zip(docs, supports)):
        triple = (doc.metadata or {}).get("triple") or []
        if doc.tool != "graph" or len(triple) != 3 or s <= 0:
            continue
        facts.append((pos, _norm(triple[0]), triple[1], _norm(triple[2])))
        start |= {_norm(e) for e in (doc.metadata or {}).get("question_entities") or [] if _specific(e)}
        start |= {_norm(e) for e in (triple[0], triple[2]) if _specific(e) and _contains_phrase(q, e)}
    reached = set(start)
    filled: dict[str, float] = {}
    generic = 0
    path: list[int] = []
    # asked relations first; generic related_to facts may extend the path only if that leaves a gap
    for allowed in (asked, asked | {"related_to"}):
        if allowed is not asked and all(p in filled for p in asked):
            break
        for _ in range(4):  # a few rounds: a 2-hop chain needs two
            grew = False
            for pos, src, pred, tgt in facts:
                if pos in path or pred not in allowed or not (src in reached or tgt in reached):
                    continue
                path.append(pos)
                if pred in asked:
                    filled[pred] = 1.0
                else:
                    generic += 1
                if not {src, tgt} <= reached:
                    reached |= {src, tgt}
                    grew = True
            if not grew:
                break
    for pred in sorted(asked):
        if generic and pred not in filled:
            filled[pred] = 0.5
            generic -= 1
    chain = sum(filled.get(p, 0.0) for p in asked) / len(asked) if asked else 1.0
    return filled, chain, path


def _quote(terms: Sequence[str], limit: int = 6) -> str:
    shown = ", ".join(f"'{t}'" for t in list(terms)[:limit])
    return shown + (f" (+{len(terms) - limit})" if len(terms) > limit else "")


def _clean_sentence(sentence: str) -> str:
    s = re.sub(r"^\s*(?:[-*•]|\d+[.)]|#+)\s*", "", sentence).strip()
    return s


_LIST_OR_HEADING = re.compile(r"^\s*(?:[-*•#|>]|\d+[.)]\s)")


def _sentences(text: str) -> list[str]:
    """Sentences of a chunk. A line wrapped inside a sentence is joined to the next one; headings and list
    items (short lines, "1. …", "- …", "# …") stay on their own."""
    merged: list[str] = []
    for line in (raw.strip() for raw in text.strip().splitlines()):
        previous = merged[-1] if merged else ""
        wrapped = (previous and line and len(previous) >= 25 and not _LIST_OR_HEADING.match(line)
                   and not re.search(r"[.!?。！？:：|]$", previous))
        if wrapped:
            merged[-1] = f"{previous} {line}"
        else:
            merged.append(line)
    return split_sentences("\n".join(merged)) or [text]


def _doc_text_for_grading(doc: Retrieved) -> str:
    """A graph fact is judged on its triple and its evidence sentence."""
    parts = [doc.text]
    meta = doc.metadata or {}
    for key in ("evidence", "source_entity", "target_entity", "subject", "object", "predicate"):
        value = meta.get(key)
        if isinstance(value, str) and value and value not in doc.text:
            parts.append(value)
    return "\n".join(parts)


def _label_of(grades: Sequence[Any] | None, i: int) -> str | None:
    if grades is None or i >= len(grades) or grades[i] is None:
        return None
    return getattr(grades[i], "label", None)


def _cite_label(doc: Retrieved) -> str:
    where = f"{doc.source}"
    if doc.chunk_index is not None:
        where += f" #{doc.chunk_index}"
    return where


# ---- safe arithmetic --------------------------------------------------------------------------------

_BIN_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
            ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_UNARY_OPS = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def safe_eval(expression: str) -> float:
    """Evaluate + - * / // % ** and parentheses on numbers only (no names, no calls but sqrt)."""

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _BIN_OPS:
            left, right = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Pow) and (abs(right) > 100 or abs(left) > 1e6):
                raise ValueError("exponent too large")
            return _BIN_OPS[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY_OPS:
            return _UNARY_OPS[type(node.op)](ev(node.operand))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sqrt"
                and len(node.args) == 1 and not node.keywords):
            return math.sqrt(ev(node.args[0]))
        raise ValueError(f"unsupported expression element: {type(node).__name__}")

    return ev(ast.parse(expression, mode="eval"))


_WORD_OPS = (
    (r"더하기|plus|加", "+"), (r"빼기|minus|减", "-"), (r"곱하기|multiplied by|times|乘以|乘", "*"),
    (r"나누기|divided by|除以", "/"), (r"×|x(?=\s*\d)", "*"), (r"÷", "/"), (r"\^", "**"),
    (r"제곱근|平方根", "sqrt"),
)


def extract_expression(question: str) -> str | None:
    """The arithmetic expression inside a question, normalised to Python syntax, or None."""
    text = _THOUSANDS.sub("", unicodedata.normalize("NFKC", question))
    for pattern, repl in _WORD_OPS:
        text = re.sub(pattern, f" {repl} ", text, flags=re.IGNORECASE)
    candidates = re.findall(r"(?:sqrt\s*)?[\d(][\d\s.+\-*/%()sqrt]*[\d)]", text)
    best = None
    for cand in candidates:
        cand = re.sub(r"\s+", " ", cand).strip()
        if re.search(r"[+\-*/%]|sqrt", cand) and (best is None or len(cand) > len(best)):
            best = cand
    return best


# --------------------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------------------


class OfflineEngine:
    """Rules and scores only; every result says which rule or score decided it."""

    name = "offline"

    def __init__(self, settings: Settings, embedder: Any = None, rules: OfflineRules | None = None) -> None:
        self.settings = settings
        self.rules = rules or OfflineRules()
        self._embedder = embedder
        self._query_vectors: dict[str, list[float]] = {}
        self._doc_vectors: dict[str, list[float]] = {}

    # ---- embeddings ---------------------------------------------------------------------------------
    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            from rag.embeddings import get_embedder

            self._embedder = get_embedder(self.settings)
        return self._embedder

    def _embedder_name(self) -> str:
        if self._embedder is not None:
            return str(getattr(self._embedder, "name", type(self._embedder).__name__))
        from rag.embeddings import embedder_name

        return embedder_name(self.settings)

    def similarity_range(self) -> tuple[float, float]:
        name = self._embedder_name().lower()
        if "e5" in name:
            return SIMILARITY_RANGES["e5"]
        if "openai" in name or "text-embedding" in name:
            return SIMILARITY_RANGES["openai"]
        return SIMILARITY_RANGES["default"]

    def similarity(self, question: str, doc: Retrieved) -> tuple[float, str]:
        """(cosine similarity of question and document, where it came from)."""
        meta = doc.metadata or {}
        if isinstance(meta.get("dense_similarity"), (int, float)):
            return float(meta["dense_similarity"]), "retriever"
        from rag.embeddings import cosine

        if question not in self._query_vectors:
            self._query_vectors[question] = self.embedder.embed_query(question)
        key = doc.text
        if key not in self._doc_vectors:
            if len(self._doc_vectors) > 5000:
                self._doc_vectors.clear()
            self._doc_vectors[key] = self.embedder.embed_documents([doc.text])[0]
        return cosine(self._query_vectors[question], self._doc_vectors[key]), "computed"

    # ---- describe -----------------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        lo, hi = self.similarity_range()
        r = self.rules
        return {
            "engine": "offline",
            "embedder": self._embedder_name(),
            "rules": {
                "classify_order": ["direct (translation / arithmetic / code syntax)",
                                   f"web (temporal markers, years >= {r.recent_year_from})",
                                   "graph (relation patterns, or >= 2 known graph entities)", "vector (default)"],
                "similarity_range": [lo, hi],
                "grade_score": f"{r.sim_weight} * similarity rescaled to [{lo}, {hi}] + "
                               f"{1 - r.sim_weight:.2f} * key-term coverage (numbers count double)",
                "correct": f"score >= {r.correct_score}, coverage >= {r.correct_coverage}, every number of the "
                           "question present, and every statistic it asks for (평균 / average / total …)",
                "ambiguous": f"score >= {r.ambiguous_score}, or missing a number / statistic of the question",
                "incorrect": "below that, or none of the content words of the asking clause present (a lead-in "
                             "clause such as '연봉 계약할 때 참고하려고 하는데,' does not count)",
                "graph_fact": "correct when its relation is one the question asks (cue words, e.g. '도시' → located_in) "
                              "and it names a question entity; ambiguous when only one of the two holds; score = "
                              f"(0.35 entity + 0.35 relation + 0.30 coverage) / (1 + {r.graph_hop_weight} × (hop − 1))",
                "graph_quality": "coverage of the asked relations along a path from the question's entities "
                                 "× (0.5 + 0.5 × key-term coverage); related_to stands in for a missing relation at ½",
                "quality": f"{r.quality_best} * best support-weighted grade score + {r.quality_coverage} * key-term "
                           f"coverage of supporting docs + {r.quality_share} * share of supporting docs "
                           f"(correct = 1, ambiguous = {r.ambiguous_support})",
                "generate": "extractive: best-covering sentences of correct, then ambiguous documents",
            },
        }

    # ---- classify -----------------------------------------------------------------------------------
    def classify(self, question: str, known_entities: list[str]) -> Decision:
        q = _norm(question)
        checked: list[str] = []

        checked.append("translation")
        hits = [m for m in TRANSLATION_MARKERS if m in q]
        if hits:
            return Decision("direct", f"translation request '{hits[0]}' → direct (no retrieval needed)",
                            signals={"rule": "translation", "matched": hits, "checked": checked})
        checked.append("arithmetic")
        for pattern in ARITHMETIC_PATTERNS:
            m = re.search(pattern, q)
            if m:
                shown = extract_expression(question) or m.group(0).strip()
                return Decision("direct", f"arithmetic expression '{shown}' → direct",
                                signals={"rule": "arithmetic", "matched": [shown], "checked": checked})
        aggregate = list_aggregate(question)
        if aggregate:
            return Decision("direct", f"{aggregate[0]} of a number list → direct (computed, no retrieval)",
                            signals={"rule": "arithmetic", "matched": [aggregate[0]], "checked": checked})
        checked.append("code syntax")
        for pattern in CODE_PATTERNS:
            m = re.search(pattern, q)
            if m:
                return Decision("direct", f"code-syntax question '{m.group(0).strip()[:40]}' → direct",
                                signals={"rule": "code_syntax", "matched": [m.group(0).strip()], "checked": checked})

        checked.append("temporal")
        markers = [m for m in TEMPORAL_MARKERS if _contains_phrase(q, m)]
        years = [y for y in re.findall(r"(?<!\d)(\d{4})(?!\d)", q) if self.rules.recent_year_from <= int(y) <= 2100]
        if markers or years:
            what = f"temporal marker '{markers[0]}'" if markers else f"year {years[0]} (>= {self.rules.recent_year_from})"
            return Decision("web", f"{what} → web (the documents may be out of date)",
                            signals={"rule": "temporal", "matched": markers + years, "checked": checked})

        checked.append("relation")
        entities = self._entities_in(question, known_entities)
        relation = [m for m in RELATION_MARKERS if _contains_phrase(q, m)]
        hop = RELATIVE_HOP_PATTERN.search(q)
        if hop:
            relation.append(hop.group(0).strip())
        if CHAIN_PATTERN.search(question):
            relation.append(CHAIN_PATTERN.search(question).group(0).strip())
        if HOW_CONNECTED.search(q):
            relation.append(HOW_CONNECTED.search(q).group(0))
        if relation:
            why = f"relation pattern '{relation[0]}'"
            if entities:
                why += f" with graph entit{'y' if len(entities) == 1 else 'ies'} {_quote(entities, 3)}"
            return Decision("graph", why + " → graph",
                            signals={"rule": "relation", "matched": relation, "entities": entities, "checked": checked})
        checked.append("graph entities")
        value = VALUE_QUESTION.search(q)
        if len(entities) >= 2 and value:
            return Decision("vector", f"{len(entities)} graph entities ({_quote(entities, 4)}) but the question asks "
                            f"for a value ('{value.group(0)}') → vector (parameters are factual lookups)",
                            signals={"rule": "value_question", "entities": entities, "matched": [value.group(0)],
                                     "checked": checked})
        if len(entities) >= 2:
            return Decision("graph", f"{len(entities)} known graph entities ({_quote(entities, 4)}) → graph",
                            signals={"rule": "entities", "entities": entities, "checked": checked})

        why = "no temporal, relation, translation, arithmetic or code pattern"
        if entities:
            why += f"; 1 graph entity ({_quote(entities, 1)}) is not enough for graph"
        return Decision("vector", why + " → vector (factual lookup)",
                        signals={"rule": "default", "entities": entities, "checked": checked})

    @staticmethod
    def _entities_in(question: str, known_entities: Sequence[str]) -> list[str]:
        q = _norm(question)
        found: list[str] = []
        for name in known_entities:
            n = _norm(name).strip()
            if not _specific(name):
                continue
            if _contains_phrase(q, n) and name not in found:
                found.append(name)
        # "Hanbit Labs" found: drop "Hanbit" when it is only part of a longer match
        return [e for e in found if not any(e != o and _norm(e) in _norm(o) for o in found)]

    # ---- grade --------------------------------------------------------------------------------------
    def grade(self, question: str, doc: Retrieved) -> Grade:
        r = self.rules
        terms, focus = question_terms(question)
        text = _doc_text_for_grading(doc)
        cov = coverage_of(terms, text, focus)
        if doc.tool == "graph":
            return self._grade_fact(question, doc, terms, focus, cov)
        else:
            sim, _origin = self.similarity(question, doc)
            lo, hi = self.similarity_range()
            sim_n = min(1.0, max(0.0, (sim - lo) / (hi - lo)))
            score = r.sim_weight * sim_n + (1 - r.sim_weight) * cov.score
            basis = f"similarity {sim:.2f}, {cov.summary()}"
        score = round(min(1.0, max(0.0, score)), 3)

        if cov.content_terms and cov.content_hits == 0:
            label, why = "incorrect", "none of the asked-about words " + _quote(cov.content_terms, 4)
            score = min(score, 0.2)
        elif not terms and score >= r.correct_score:
            label, why = "correct", "no key terms in the question; similarity decides"
        elif cov.missing_numbers:
            label = "ambiguous" if score >= r.ambiguous_score * 0.8 else "incorrect"
            why = f"lacks {_quote(cov.missing_numbers)} from the question"
            score = min(score, r.correct_score - 0.05)
        elif score >= r.correct_score and cov.score >= r.correct_coverage:
            label, why = "correct", f"score {score:.2f} ≥ {r.correct_score}"
        elif score >= r.ambiguous_score:
            label = "ambiguous"
            why = (f"score {score:.2f} < {r.correct_score}" if score < r.correct_score
                   else f"coverage {cov.score:.2f} < {r.correct_coverage}")
        else:
            label, why = "incorrect", f"score {score:.2f} < {r.ambiguous_score}"
        return Grade(label=label, score=round(score, 3), reason=f"{basis} → {label}: {why}")

    def _grade_fact(self, question: str, doc: Retrieved, terms: list[str], focus: set[str], cov: Coverage) -> Grade:
        """A graph fact: does it touch an entity of the question, and is its relation one the question asks?"""
        r = self.rules
        meta = doc.metadata or {}
        hop = meta.get("hop")
        hop = int(hop) if isinstance(hop, (int, float)) and hop >= 1 else 1
        triple = meta.get("triple") or []
        predicate = triple[1] if len(triple) == 3 else ""
        asked = asked_relations(question)
        cov = _fact_coverage(terms, focus, doc)
        named = self._fact_touches_question(question, doc)
        fills = predicate in asked
        score = 0.35 * named + 0.35 * fills + 0.30 * cov.score
        score = round(min(1.0, score / (1 + r.graph_hop_weight * (hop - 1))), 3)
        basis = (f"graph fact (hop {hop}, {predicate or 'no predicate'}): "
                 f"{'touches' if named else 'does not touch'} a question entity, relation "
                 f"{'is' if fills else 'is not'} asked ({', '.join(sorted(asked)) or 'none detected'}), {cov.summary()}")
        if fills and named and not cov.missing_numbers:
            label, why = "correct", "asked relation of a question entity"
            score = max(score, r.correct_score)
        elif fills:
            label, why = "ambiguous", "asked relation, but not of an entity named in the question (evaluate checks the path)"
            score = min(max(score, r.ambiguous_score), r.correct_score - 0.05)
        elif named and cov.content_hits > 0:
            label, why = "ambiguous", "names a question entity, but its relation is not the one asked"
            score = min(max(score, r.ambiguous_score), r.correct_score - 0.05)
        elif cov.content_terms and cov.content_hits == 0:
            label, why = "incorrect", "none of the asked-about words " + _quote(cov.content_terms, 4)
            score = min(score, 0.2)
        else:
            label = "ambiguous" if score >= r.ambiguous_score else "incorrect"
            why = f"score {score:.2f}"
        return Grade(label=label, score=round(score, 3), reason=f"{basis} → {label}: {why}")

    @staticmethod
    def _fact_touches_question(question: str, doc: Retrieved) -> bool:
        meta = doc.metadata or {}
        triple = meta.get("triple") or []
        ends = [triple[0], triple[2]] if len(triple) == 3 else []
        q_entities = {_norm(e) for e in meta.get("question_entities") or [] if _specific(e)}
        q = _norm(question)
        return any(_specific(e) and (_norm(e) in q_entities or _contains_phrase(q, e)) for e in ends)

    # ---- evaluate -----------------------------------------------------------------------------------
    def _support(self, label: str | None) -> float:
        return 1.0 if label == "correct" else self.rules.ambiguous_support if label == "ambiguous" else 0.0

    def evaluate(self, question: str, docs: list[Retrieved], grades: list[Grade]) -> Quality:
        r = self.rules
        if not docs:
            return Quality(0.0, "no documents retrieved → quality 0.00")
        terms, focus = question_terms(question)
        supports = [self._support(_label_of(grades, i)) for i in range(len(docs))]
        n_correct = sum(1 for s in supports if s == 1.0)
        n_amb = sum(1 for i in range(len(docs)) if _label_of(grades, i) == "ambiguous")
        best = max((s * grades[i].score for i, s in enumerate(supports) if s > 0), default=0.0)
        share = sum(supports) / len(docs)
        credit = {t: 0.0 for t in terms}
        for i, s in enumerate(supports):
            if s <= 0:
                continue
            cov = (_fact_coverage(terms, focus, docs[i]) if docs[i].tool == "graph"
                   else coverage_of(terms, _doc_text_for_grading(docs[i])))
            for t in terms:
                credit[t] = max(credit[t], s * cov.credit.get(t, 0.0))
        weights = {t: Coverage(terms, {}, {}, focus).weight(t) for t in terms}
        total = sum(weights.values())
        union = sum(weights[t] * credit[t] for t in terms) / total if total else (1.0 if best > 0 else 0.0)
        quality = round(r.quality_best * best + r.quality_coverage * union + r.quality_share * share, 3)
        missing = [t for t in terms if credit[t] <= 0]
        reason = (f"{r.quality_best}×best {best:.2f} + {r.quality_coverage}×coverage {union:.2f} + "
                  f"{r.quality_share}×share {share:.2f} = {quality:.2f} "
                  f"({n_correct} correct, {n_amb} ambiguous of {len(docs)})")
        asked = asked_relations(question)
        if asked and any(d.tool == "graph" for d in docs):
            # graph facts answer a chain: what counts is whether every asked relation is reached from the
            # question's entities, not how good the single best fact is
            filled, chain, _ = graph_path(question, docs, supports)
            quality = round(chain * (0.5 + 0.5 * union), 3)
            shown = ", ".join(f"{p} {'✓' if filled.get(p, 0) >= 1 else '½ (related_to)' if filled.get(p) else '✗'}"
                              for p in sorted(asked))
            reason = (f"graph path: coverage of asked relations {chain:.2f} ({shown}) × (0.5 + 0.5×key-term coverage "
                      f"{union:.2f}) = {quality:.2f} ({n_correct} correct, {n_amb} ambiguous of {len(docs)})")
        if missing:
            reason += f"; not covered: {_quote(missing, 4)}"
        return Quality(min(1.0, quality), reason)

    # ---- rewrite ------------------------------------------------------------------------------------
    def rewrite(self, question: str, query: str, docs: list[Retrieved], grades: list[Grade]) -> Rewrite:
        terms, _ = question_terms(question)
        if not terms:
            terms = question_terms(query)[0] or [question.strip()]
        base = list(terms)
        translations: list[str] = []
        for t in terms:
            for other in _glossary_translations(t):
                if other not in base and other not in translations and len(other) > 1:
                    translations.append(other)
                    break
        doc_terms = self._terms_from_ambiguous(question, docs, grades, exclude=set(base) | set(translations))
        narrow = [t for t in terms if _is_number(t)] + sorted(
            [t for t in terms if not _is_number(t)], key=len, reverse=True)[:2]

        candidates: list[tuple[list[str], str]] = [
            (base, "kept key terms " + _quote(base) + ", dropped question words and particles"),
        ]
        if translations:
            candidates.append((base + translations, "added glossary translations " + _quote(translations)))
        if doc_terms:
            candidates.append((base + translations + doc_terms,
                               "added terms from ambiguous documents " + _quote(doc_terms)))
        if narrow and narrow != base:
            candidates.append((narrow, "narrowed to the most specific terms " + _quote(narrow)))

        # the candidates form a sequence: continue after the one the current query is, so that successive
        # rewrites never repeat a query (the agent only passes the latest one)
        current = normalize_query(query)
        position = next((i for i, (words, _) in enumerate(candidates)
                         if normalize_query(" ".join(words)) == current), -1)
        for words, why in candidates[position + 1:]:
            text = " ".join(words)
            if normalize_query(text) not in (current, normalize_query(question)):
                return Rewrite(text, why)
        words, why = candidates[-1]
        return Rewrite(" ".join(words), why + " (no new rewrite left: same query as before)")

    def _terms_from_ambiguous(self, question: str, docs: Sequence[Retrieved], grades: Sequence[Grade],
                              exclude: set[str], limit: int = 3) -> list[str]:
        terms, _ = question_terms(question)
        counts: dict[str, int] = {}
        for i, doc in enumerate(docs):
            if _label_of(grades, i) != "ambiguous":
                continue
            sentences = _sentences(doc.text)
            best = max(sentences, key=lambda s: coverage_of(terms, s).score)
            for t in key_terms(best):
                if t not in exclude and not _is_number(t) and len(t) > 1:
                    counts[t] = counts.get(t, 0) + 1
        ranked = sorted(counts, key=lambda t: (-counts[t], -len(t)))
        return ranked[:limit]

    # ---- generate -----------------------------------------------------------------------------------
    def generate(self, question: str, docs: list[Retrieved], grades: list[Grade] | None, mode: str) -> Answer:
        lang = language_of(question)
        if mode == "direct":
            return self._generate_direct(question, lang)
        if mode == "naive":
            return self._generate_naive(question, docs, lang)
        if mode == "partial":
            return self._generate_partial(question, docs, grades, lang)
        return self._generate_answer(question, docs, grades, lang)

    @staticmethod
    def _context(docs: Sequence[Retrieved]) -> str:
        return "\n\n".join(f"[{i}] {_cite_label(d)}\n{d.text}" for i, d in enumerate(docs, 1))

    @staticmethod
    def _template(mode: str, description: str, question: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": f"offline engine, mode '{mode}' (rules, no language model): {description}"},
                {"role": "user", "content": question}]

    def _rank_sentences(self, terms: Sequence[str], docs: Sequence[Retrieved],
                        wants_value: bool = False) -> list[tuple[float, int, str, Coverage]]:
        """(score, doc position, sentence, coverage) for every sentence of the docs, best first. When the question
        asks for a value (몇 / 얼마 / how many / what value), a sentence that states a number ranks higher."""
        ranked: list[tuple[float, int, str, Coverage]] = []
        for pos, doc in enumerate(docs):
            for sentence in _sentences(doc.text):
                clean = _clean_sentence(sentence)
                if len(clean) < 12 or " " not in clean.strip() or sentence.lstrip().startswith("#"):
                    continue
                cov = coverage_of(terms, clean)
                bonus = 0.15 if wants_value and cov.score > 0 and re.search(r"\d", clean) else 0.0
                ranked.append((cov.score + bonus - 0.01 * pos, pos, clean, cov))
        # Equal coverage in one document: the shorter sentence states the fact more directly
        # ("연차 휴가는 입사 1년 후 15일이다" over a long sentence about the first year's exception).
        ranked.sort(key=lambda x: (-round(x[0], 6), x[1], len(x[2])))
        return ranked

    def _select(self, terms: Sequence[str], docs: Sequence[Retrieved],
                wants_value: bool = False) -> list[tuple[int, str, Coverage]]:
        """Greedy cover: the best sentence, then sentences that add uncovered key terms."""
        ranked = self._rank_sentences(terms, docs, wants_value)
        if not ranked:
            return []
        chosen = [ranked[0]]
        covered = set(ranked[0][3].covered)
        for item in ranked[1:]:
            if len(chosen) >= self.rules.max_evidence:
                break
            new = set(item[3].covered) - covered
            if new and item[0] >= 0.25 and len(item[3].covered) >= 2:
                chosen.append(item)
                covered |= new
        if (len(chosen) == 1 and len(ranked) > 1 and ranked[1][0] >= max(0.25, 0.6 * ranked[0][0])
                and ranked[1][1] != ranked[0][1]):
            chosen.append(ranked[1])  # a second source that supports the same terms
        return [(pos, s, cov) for _, pos, s, cov in chosen]

    def _answer_with_citations(self, question: str, pool: list[Retrieved], terms: Sequence[str], lang: str,
                               uncertainty: str | None) -> tuple[str, list[Citation], list[tuple[int, str, Coverage]]]:
        f = FRAMES[lang]
        picked = self._select(terms, pool, wants_value=bool(VALUE_QUESTION.search(_norm(question))))
        order: list[int] = []
        for pos, _, _ in picked:
            if pos not in order:
                order.append(pos)
        number = {pos: i + 1 for i, pos in enumerate(order)}
        lines = [f"{f['conclusion']}: {picked[0][1]} [{number[picked[0][0]]}]", f"{f['evidence']}:"]
        lines += [f"- {s} [{number[pos]}]" for pos, s, _ in picked]
        lines.append(f"{f['sources']}: " + "; ".join(f"[{number[p]}] {_cite_label(pool[p])}" for p in order))
        if uncertainty:
            lines.append(f"{f['uncertainty']}: {uncertainty}")
        citations = [Citation(id=pool[p].id, source=pool[p].source, text=pool[p].text, doc_id=pool[p].doc_id,
                              chunk_index=pool[p].chunk_index) for p in order]
        return "\n".join(lines), citations, picked

    def _generate_answer(self, question: str, docs: list[Retrieved], grades: list[Grade] | None, lang: str) -> Answer:
        f = FRAMES[lang]
        labels = [_label_of(grades, i) for i in range(len(docs))]
        correct = sorted((i for i, lab in enumerate(labels) if lab == "correct"), key=lambda i: -grades[i].score)
        ambiguous = sorted((i for i, lab in enumerate(labels) if lab == "ambiguous"), key=lambda i: -grades[i].score)
        pool = [docs[i] for i in correct + ambiguous]
        template = self._template("answer", "quote the sentences of correct (then ambiguous) documents that best cover "
                                  "the question's key terms; conclusion + evidence + citations + uncertainty; "
                                  "abstain when no document is correct or ambiguous", question)
        if not pool:
            text = f"{f['abstain']} {f['abstain_hint']}"
            return Answer(text, [], True, f"no document graded correct or ambiguous ({len(docs)} graded) → abstain",
                          context=self._context([]), prompt=template)
        if all(d.tool == "graph" for d in pool):
            return self._generate_graph_answer(question, docs, grades, lang, template)
        terms, _ = question_terms(question)
        text, citations, picked = self._answer_with_citations(question, pool, terms, lang, uncertainty=None)
        picked_cov = coverage_of(terms, "\n".join(s for _, s, _ in picked))
        if not correct:
            uncertainty = f["ambiguous_only"]
        elif picked_cov.missing:
            uncertainty = f["missing"].format(terms=_quote(picked_cov.missing))
        else:
            uncertainty = f["all_covered"]
        text += f"\n{f['uncertainty']}: {uncertainty}"
        reason = (f"extractive: {len(picked)} sentence(s) from {len(citations)} document(s) "
                  f"({len(correct)} correct, {len(ambiguous)} ambiguous in context); "
                  f"{picked_cov.summary()}")
        return Answer(text, citations, False, reason, context=self._context(pool), prompt=template)

    def _generate_graph_answer(self, question: str, docs: list[Retrieved], grades: list[Grade] | None, lang: str,
                               template: list[dict[str, str]]) -> Answer:
        """Graph facts: the path from the question's entities through the asked relations, fact by fact."""
        f = FRAMES[lang]
        supports = [self._support(_label_of(grades, i)) for i in range(len(docs))]
        filled, chain, path = graph_path(question, docs, supports)
        asked = asked_relations(question)
        def predicate(i: int) -> str:
            t = (docs[i].metadata or {}).get("triple") or []
            return t[1] if len(t) == 3 else ""
        on_path: list[int] = []
        for rel in asked:  # the fact nearest to the question's entities for each asked relation
            first = next((i for i in path if predicate(i) == rel), None)
            if first is not None:
                on_path.append(first)
        on_path.sort(key=path.index)
        if any(0 < v < 1 for v in filled.values()):  # a related_to fact stood in for a missing relation
            on_path += [i for i in path if predicate(i) == "related_to"][:1]
        correct = [i for i in range(len(docs)) if _label_of(grades, i) == "correct" and i not in on_path]
        chosen: list[int] = []
        for i in on_path + correct:
            key = tuple((docs[i].metadata or {}).get("triple") or [docs[i].id])
            if all(tuple((docs[j].metadata or {}).get("triple") or [docs[j].id]) != key for j in chosen):
                chosen.append(i)
        chosen = chosen[: self.rules.max_evidence + 1]
        if not chosen:
            chosen = [max(range(len(docs)), key=lambda i: supports[i] * grades[i].score)]
        triples = []
        for i in chosen:
            t = (docs[i].metadata or {}).get("triple") or []
            triples.append(f"{t[0]} —{t[1]}→ {t[2]}" if len(t) == 3 else _clean_sentence(docs[i].text))
        lines = [f"{f['conclusion']}: " + "; ".join(f"{t} [{n}]" for n, t in enumerate(triples, 1)), f"{f['evidence']}:"]
        for n, i in enumerate(chosen, 1):
            evidence = (docs[i].metadata or {}).get("evidence") or docs[i].text.split("\n")[0]
            lines.append(f"- {_clean_sentence(evidence)} [{n}]")
        lines.append(f"{f['sources']}: " + "; ".join(f"[{n}] {_cite_label(docs[i])}" for n, i in enumerate(chosen, 1)))
        missing = [p for p in sorted(asked) if filled.get(p, 0) < 1]
        uncertainty = (f["missing"].format(terms=_quote(missing)) if missing else
                       self._say(lang, "질문이 묻는 관계가 모두 그래프 사실로 이어집니다. 사실은 문서 문장에서 규칙으로 뽑은 것입니다.",
                                 "Every asked relation is reached by a graph fact; facts were extracted from document "
                                 "sentences by rules.",
                                 "问题所问的关系都由图谱事实连接；事实由规则从文档句子中抽取。"))
        lines.append(f"{f['uncertainty']}: {uncertainty}")
        citations = [Citation(id=docs[i].id, source=docs[i].source, text=docs[i].text, doc_id=docs[i].doc_id,
                              chunk_index=docs[i].chunk_index) for i in chosen]
        pool = [docs[i] for i in chosen]
        return Answer("\n".join(lines), citations, False,
                      f"graph path: {len(chosen)} fact(s), asked relations covered {chain:.2f}",
                      context=self._context(pool), prompt=template)

    def _generate_naive(self, question: str, docs: list[Retrieved], lang: str) -> Answer:
        f = FRAMES[lang]
        template = self._template("naive", "no grading: quote the best-matching sentences of the top documents "
                                  "as the answer (pipeline baseline; it never checks relevance)", question)
        top = list(docs[: self.settings.top_k])
        if not top:
            return Answer(f["no_docs"], [], False, "naive: nothing retrieved", context="", prompt=template)
        terms, _ = question_terms(question)
        text, citations, picked = self._answer_with_citations(question, top, terms, lang, uncertainty=None)
        return Answer(text, citations, False,
                      f"naive: answered from the top {len(top)} documents without grading "
                      f"({len(picked)} sentence(s) quoted)", context=self._context(top), prompt=template)

    def _generate_partial(self, question: str, docs: list[Retrieved], grades: list[Grade] | None,
                          lang: str) -> Answer:
        f = FRAMES[lang]
        template = self._template("partial", "list which key terms of the question the correct / ambiguous documents "
                                  "cover (with the sentence and source) and which none covers", question)
        labels = [_label_of(grades, i) for i in range(len(docs))]
        pool_idx = [i for i, lab in enumerate(labels) if lab == "correct"] + \
                   [i for i, lab in enumerate(labels) if lab == "ambiguous"]
        seen: set[str] = set()
        pool: list[Retrieved] = []
        for i in pool_idx:
            if docs[i].id not in seen:
                seen.add(docs[i].id)
                pool.append(docs[i])
        terms, _ = question_terms(question)
        found: list[tuple[str, int, str]] = []
        missing: list[str] = []
        for t in terms:
            hit = None
            for pos, doc in enumerate(pool):
                for sentence in _sentences(doc.text):
                    if coverage_of([t], sentence).credit[t] > 0:
                        hit = (t, pos, _clean_sentence(sentence))
                        break
                if hit:
                    break
            if hit:
                found.append(hit)
            else:
                missing.append(t)
        if not found:
            text = f"{f['abstain']}\n{f['not_found']}: {_quote(terms, 12) or question}"
            return Answer(text, [], True, f"partial: no correct/ambiguous document covers any key term → abstain",
                          context=self._context(pool), prompt=template)
        order: list[int] = []
        for _, pos, _ in found:
            if pos not in order:
                order.append(pos)
        number = {pos: i + 1 for i, pos in enumerate(order)}
        by_sentence: dict[tuple[int, str], list[str]] = {}
        for t, pos, sentence in found:
            by_sentence.setdefault((pos, sentence), []).append(t)
        lines = [f"{f['found']}:"]
        lines += [f"- {sentence} [{number[pos]}] ({_quote(ts, 12)})" for (pos, sentence), ts in by_sentence.items()]
        lines.append(f"{f['not_found']}: " + (_quote(missing, 12) if missing else "-"))
        lines.append(f"{f['sources']}: " + "; ".join(f"[{number[p]}] {_cite_label(pool[p])}" for p in order))
        lines.append(f"{f['uncertainty']}: {f['partial_note']}")
        citations = [Citation(id=pool[p].id, source=pool[p].source, text=pool[p].text, doc_id=pool[p].doc_id,
                              chunk_index=pool[p].chunk_index) for p in order]
        return Answer("\n".join(lines), citations, False,
                      f"partial: {len(found)}/{len(terms)} key terms found in {len(order)} document(s); "
                      f"not found: {_quote(missing) or 'none'}", context=self._context(pool), prompt=template)

    # ---- direct -------------------------------------------------------------------------------------
    def _generate_direct(self, question: str, lang: str) -> Answer:
        q = _norm(question)
        aggregate = list_aggregate(question)
        if aggregate:
            name, values = aggregate
            template = self._template("direct", "aggregate of a literal number list (average / sum / max / min / "
                                      "median), computed in Python", question)
            import statistics

            fn = {"average": statistics.fmean, "sum": math.fsum, "max": max, "min": min, "median": statistics.median}
            value = fn[name](values)
            shown = f"{value:.10g}"
            listed = ", ".join(f"{v:g}" for v in values)
            text = self._say(lang, f"[{listed}]의 {dict(average='평균', sum='합', max='최댓값', min='최솟값', median='중앙값')[name]}은 {shown}입니다.",
                             f"The {name} of [{listed}] is {shown}.", f"[{listed}] 的{dict(average='平均值', sum='总和', max='最大值', min='最小值', median='中位数')[name]}是 {shown}。")
            if name == "average":
                text += f"\n(sum {math.fsum(values):g} / {len(values)} = {shown}; Python: sum(xs) / len(xs))"
            return Answer(text, [], False, f"direct: {name} of {len(values)} numbers computed", prompt=template)
        expression = extract_expression(question) if any(re.search(p, q) for p in ARITHMETIC_PATTERNS) else None
        if expression:
            template = self._template("direct", "arithmetic: the expression is evaluated with a safe AST evaluator "
                                      "(numbers and + - * / // % ** sqrt only)", question)
            try:
                value = safe_eval(expression)
            except (ValueError, SyntaxError, ZeroDivisionError, OverflowError, TypeError) as exc:
                return Answer(self._say(lang, f"계산할 수 없습니다: {expression} ({exc})",
                                        f"Cannot compute {expression}: {exc}", f"无法计算 {expression}：{exc}"),
                              [], True, f"arithmetic '{expression}' failed: {exc}", prompt=template)
            shown = f"{value:.10g}" if isinstance(value, float) else str(value)
            return Answer(f"{expression} = {shown}", [], False, f"arithmetic: evaluated '{expression}' safely",
                          prompt=template)

        if any(m in q for m in TRANSLATION_MARKERS):
            return self._translate(question, lang)

        recipe = self._code_recipe(q)
        if recipe:
            title, code = recipe
            template = self._template("direct", "code syntax: a built-in Python recipe chosen by keywords", question)
            intro = self._say(lang, f"Python 예시 ({title}):", f"Python ({title}):", f"Python 示例（{title}）：")
            return Answer(f"{intro}\n```python\n{code}\n```", [], False, f"code recipe '{title}' matched by keywords",
                          prompt=template)

        template = self._template("direct", "general knowledge needs a language model; the offline engine has none",
                                  question)
        text = self._say(
            lang,
            "오프라인 엔진에는 일반 지식에 답할 언어 모델이 없습니다. OPENAI_API_KEY(또는 Ollama·vLLM 같은 호환 서버의 "
            "OPENAI_BASE_URL)를 설정하면 llm 엔진이 답합니다. 오프라인으로는 계산, 용어 번역, 간단한 Python 구문만 답할 수 있습니다.",
            "The offline engine has no language model for general knowledge. Set OPENAI_API_KEY (or OPENAI_BASE_URL "
            "for an OpenAI-compatible server such as Ollama or vLLM) to use the llm engine. Offline, only arithmetic, "
            "glossary translation and simple Python syntax are answered.",
            "离线引擎没有可以回答常识问题的语言模型。设置 OPENAI_API_KEY（或 Ollama、vLLM 等兼容服务器的 OPENAI_BASE_URL）"
            "即可使用 llm 引擎。离线时只能回答算术、术语翻译和简单的 Python 语法。",
        )
        return Answer(text, [], True, "direct: no arithmetic, glossary term or code recipe matched; no language model "
                      "offline → abstain", prompt=template)

    @staticmethod
    def _say(lang: str, ko: str, en: str, zh: str) -> str:
        return {"ko": ko, "en": en, "zh": zh}[lang]

    @staticmethod
    def _code_recipe(q: str) -> tuple[str, str] | None:
        for required, also, title, code in CODE_RECIPES:
            if all(re.search(group, q) for group in required) and all(re.search(group, q) for group in also):
                return title, code
        return None

    def _translate(self, question: str, lang: str) -> Answer:
        template = self._template("direct", "translation with the built-in ko/en/zh glossary of RAG / ML terms "
                                  f"({len(GLOSSARY)} entries); unknown words are left as they are", question)
        q = _norm(question)
        if any(m in q for m in ("영어로", "영문으로", "english", "英文", "英语")):
            target = 0
        elif any(m in q for m in ("한국어로", "한글로", "korean", "韩语", "韩文")):
            target = 1
        elif any(m in q for m in ("중국어로", "chinese", "中文", "汉语")):
            target = 2
        else:
            target = 0 if lang != "en" else 1
        quoted = re.findall(r"[\"'“”‘’「」『』]([^\"'“”‘’「」『』]+)[\"'“”‘’「」『』]", question)
        source = quoted[0] if quoted else re.sub(
            r"(을|를)?\s*(영어로|한국어로|한글로|중국어로|영문으로)?\s*(번역(해\s*줘|해\s*주세요|하라|하면|해)?|옮겨).*$", "",
            re.sub(r"(?i)^\s*(please\s+)?translate\s+", "", question)).strip(" ?.!？。")
        source = re.sub(r"(?i)\s+(in|into)\s+(english|korean|chinese).*$", "", source).strip(" ?.!")
        src_norm = _norm(source)
        for row in GLOSSARY:
            if src_norm in (_norm(x) for x in row):
                out = row[target]
                return Answer(f"'{source}' → {out}", [], False,
                              f"glossary entry '{row[0]}' ({['en', 'ko', 'zh'][target]})", prompt=template)
        # word by word, longest glossary forms first
        pieces, known = [], 0
        rest = src_norm
        forms = sorted(((_norm(x), row) for row in GLOSSARY for x in row), key=lambda p: -len(p[0]))
        for form, row in forms:
            if form and len(form) > 1 and _contains_phrase(rest, form):
                rest = rest.replace(form, f"\u0000{len(pieces)}\u0000")
                pieces.append(row[target])
                known += 1
        if not known:
            text = self._say(lang, f"'{source}'은(는) 오프라인 용어집에 없습니다. 일반 번역에는 llm 엔진(OPENAI_API_KEY)이 필요합니다.",
                             f"'{source}' is not in the offline glossary; general translation needs the llm engine "
                             "(OPENAI_API_KEY).",
                             f"'{source}' 不在离线词汇表中；一般翻译需要 llm 引擎（OPENAI_API_KEY）。")
            return Answer(text, [], True, "translation: no glossary term in the text → abstain", prompt=template)
        out = re.sub("\u0000(\\d+)\u0000", lambda m: pieces[int(m.group(1))], rest)
        return Answer(f"'{source}' → {out}", [], False,
                      f"translation: {known} glossary term(s) replaced word by word; other words left as written",
                      prompt=template)

    # ---- extract ------------------------------------------------------------------------------------
    def extract(self, text: str, doc_id: str, chunk_id: str, source_file: str) -> Extraction:
        from rag.extract import extract

        return extract(text, doc_id, chunk_id, source_file)
