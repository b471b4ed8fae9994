"""Every tuned number and word list of the offline engine, in one place.

Tuned on: ``sample_docs/`` (11 documents) and ``sample_docs/questions.jsonl`` unless a line says otherwise; these
figures are training figures. Word lists that are plain language facts (question words, Korean endings) are marked
"language", not tuned. Change a value here, rerun ``rag eval sample_docs/questions.jsonl``, and say so.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from rag.textutil import LATIN_LETTERS_PER_CJK  # noqa: F401  (re-exported: the offline engine's rules hold it too)

# A year the knowledge base does not mention and at most this many years before today's counts as recent → web
# (relative to the clock, no fixed year). Chosen, not tuned: "this year or last year".
RECENT_YEARS = 1

# language: markers of time relative to today that name a period ("this year" → today's year); the year of that
# period must be in a document graded correct. The other TEMPORAL_MARKERS ("latest", "최신") cannot be confirmed
# by documents at all: a document is at most "ambiguous" for them.
PERIOD_MARKERS: dict[str, str] = {
    "today": "day", "tonight": "day", "yesterday": "day", "this week": "week", "this month": "month",
    "this year": "year", "오늘": "day", "어제": "day", "이번 주": "week", "이번주": "week", "이번 달": "month",
    "이번달": "month", "올해": "year", "금년": "year", "今天": "day", "昨天": "day", "本周": "week", "这周": "week",
    "本月": "month", "今年": "year"}

# language + sample_docs questions: words that ask for fresh information
TEMPORAL_MARKERS = (
    # English
    "latest", "most recent", "recent", "recently", "today", "tonight", "yesterday", "this year", "this month",
    "this week", "current", "currently", "nowadays", "right now", "news", "up to date", "up-to-date",
    "breaking", "trending",
    # Korean
    "최신", "최근", "오늘", "어제", "올해", "금년", "현재", "요즘", "이번 주", "이번주", "이번 달", "이번달", "지금", "뉴스", "실시간",
    # Chinese
    "最新", "最近", "今天", "昨天", "今年", "本周", "这周", "本月", "目前", "现在", "当前", "新闻", "近期",
)

# language: the TEMPORAL_MARKERS that ask for the present state of something ("직원 지금 몇 명", "目前有多少家门店"),
# not for news. A question with these only goes to the web when it names nothing the documents hold ("지금 날씨",
# "현재 환율"); about something they hold it goes to the documents, and a document answers it when it states the
# present itself (PRESENT_STATED: "2026년 11월 현재", "as of", "目前", "截至"). Not tuned on any corpus.
PRESENT_MARKERS = ("current", "currently", "nowadays", "right now", "현재", "지금", "요즘", "目前", "现在", "当前")
PRESENT_STATED = re.compile(r"현재|지금|\b(?:currently|as of|at present|now|today)\b|目前|截至|截止|现在|当前|迄今", re.I)

# language: words that ask for a translation
TRANSLATION_MARKERS = (
    "translate", "translation", "in english", "into english", "in korean", "into korean", "in chinese",
    "into chinese", "번역", "영어로", "한국어로", "한글로", "중국어로", "영문으로", "翻译", "译成", "翻成",
    "用英文", "用英语", "用韩语", "用中文", "英文怎么说", "英语怎么说",
)

# tuned on sample_docs questions: code-syntax questions answered directly
CODE_PATTERNS = (
    r"(python|파이썬|javascript|java|sql|bash|rust|golang|typescript)\s*(에서|으로|로)\s*.*(방법|어떻게|하려면|코드|문법)",
    r"(python|파이썬|javascript|java|sql|bash|rust|golang|typescript)\s*(코드|문법|구문)",
    r"\bhow (do|can|would|should) (i|you|we)\b.*\b(in|with|using) (python|javascript|java|sql|bash|rust|go|typescript)\b",
    r"\b(python|javascript|java|sql|bash|rust|typescript) (syntax|code|snippet|one-liner)\b",
    r"\bsyntax (of|for)\b",
    r"(用|在)\s*(python|java|javascript|sql)\s*.*(怎么|如何|代码|语法)",
    r"(python|java|javascript|sql)\s*(中|里)\s*.*(怎么|如何)",
)

# language: arithmetic expressions
ARITHMETIC_PATTERNS = (
    r"\d\s*[+*/×÷^]\s*\(?\s*\d",
    r"\d\s+-\s+\d",
    r"\d\s*(더하기|빼기|곱하기|나누기)\s*\d",
    r"\d\s*(plus|minus|times|multiplied by|divided by)\s*\d",
    r"\d\s*(加上|减去|加|减|乘以|乘|除以)\s*\d",
    r"(sqrt|제곱근|平方根)\s*\(?\s*\d",
)
# a season or a date written with slashes ("the 2026/27 season", "2026/3/14") is no division (notation, not tuned):
# a year, then the next year's last two digits or a month (routing._season_or_date checks which)
SLASHED_YEAR = re.compile(r"(?<![\d.])((?:19|20)\d\d)/(\d{1,2})(?:/(\d{1,2}))?(?![\d.])")
# "리스트 [4, 8, 15]의 평균", "the sum of [1, 2, 3]": an aggregate over a literal list of numbers
NUMBER_LIST = re.compile(r"[\[(]\s*-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?)+\s*[\])]")
AGGREGATES: tuple[tuple[str, str], ...] = (
    (r"평균|average|mean|平均", "average"), (r"합계|합|총합|sum|total|总和|合计", "sum"),
    (r"최댓값|최대|가장 큰|max|maximum|largest|最大", "max"), (r"최솟값|최소|가장 작은|min|minimum|smallest|最小", "min"),
    (r"중앙값|median|中位数", "median"),
)

# language: greetings, thanks and sign-offs. A message made only of these (no question in it) is small talk →
# direct, before any other rule ("오늘도 수고 많으셨어요" holds "오늘" but asks nothing about today).
SMALL_TALK = re.compile(
    r"안녕|반갑|고마워|고맙|감사합니다|감사해요|감사드|잘 부탁|수고하|좋은 하루|"
    r"\b(?:hi|hello|hey|thanks|thank you|good (?:morning|afternoon|evening)|nice to meet you|have a nice day|cheers)\b|"
    r"你好|您好|谢谢|多谢|麻烦你|辛苦了|早上好|晚上好", re.I)
# language: words that make a message a question or a request (small talk must hold none of them)
ASKING = re.compile(
    r"[?？]|뭐|무엇|어디|언제|누구|누가|어떻|어느|얼마|몇|왜|알려|가르쳐|설명|찾아|궁금|"
    r"\b(?:what|which|where|when|who|whom|whose|why|how|tell me|explain|show me|find|can you|could you|please)\b|주세요|"
    r"什么|哪|谁|几|多少|怎么|如何|为什么|请问|告诉|介绍", re.I)
# language: questions of general world knowledge (a country's capital, what an abbreviation stands for, how many
# minutes are in an hour): direct when the knowledge base does not mention what they ask about. Not tuned on a corpus.
GENERAL_KNOWLEDGE = re.compile(
    r"(?:\S+)의 수도|수도는 어디|\bcapital (?:city )?of\b|的首都|首都是|"
    r"\bstand for\b|\babbreviation (?:of|for)\b|의 약자|약자는|缩写|"
    r"\bhow many (?:centimet|met|kilomet|inch|feet|foot|gram|kilogram|pound|minute|second|hour|day)\w* "
    r"(?:are )?in an?\b|"
    r"\bchemical (?:formula|symbol)\b|화학식|원소 기호|化学式|分子式|元素符号|"
    # "一公斤等于多少克", "1킬로미터는 몇 미터": one of a unit in another unit
    r"(?:^|[^\d])(?:一|1)\s?(?:公斤|千克|公里|千米|米|厘米|小时|分钟|天|周|年)(?:等于|是|有)(?:多少|几)个?\s?"
    r"(?:克|米|厘米|毫米|分钟|秒|小时|天)|"
    r"(?:^|[^\d])1\s?(?:킬로그램|킬로미터|미터|센티미터|시간|분|일|주|년)(?:은|는)\s?몇\s?"
    r"(?:그램|미터|센티미터|밀리미터|분|초|시간|일)",
    re.I)
# language: what a GENERAL_KNOWLEDGE frame asks (not 수도권 / 수도 요금; no abbreviation: documents define those in brackets)
GENERAL_ATTRIBUTE = re.compile(r"수도(?=(?:는|가|이)?\s*(?:어디|뭐|무엇|어느|[?？]|$))|capital|首都|화학식|원소 기호|"
                               r"chemical (?:formula|symbol)|化学式|分子式|元素符号", re.I)
# language: bare question words; they alone do not ask for a graph relation ("Where did X work …" is a lookup)
BARE_INTERROGATIVES = ("어디", "where", "哪里")
# language: whose product a thing is ("어느 회사 제품", "who makes"): the maker relation in a chain, alone no graph route
MAKER_CUES = ("회사 제품", "업체 제품", "납품", "makes", "maker", "supplied", "supplier", "公司的产品", "供货", "供应商")
# language: "which team / company" phrases; they ask for a graph relation only together with a relation the graph
# stores (RELATION_SLOTS: "which team owns", "어느 팀 소속"), not with any verb ("which company installed …")
WHICH_ORG_MARKERS = frozenset({"어느 조직", "어느 팀", "어떤 팀", "무슨 팀", "어느 회사", "which organization",
                               "which organisation", "which company", "which team", "what team", "哪个组织",
                               "哪个团队", "哪个公司", "哪家公司"})

# tuned on sample_docs questions: phrases that ask about a relation → graph
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
    "关系", "谁开发", "谁创建", "谁负责", "哪个组织", "哪个团队", "哪个公司", "哪家公司", "属于", "之间", "联系",
)
# Entity names too generic to count as "a known graph entity in the question".
STOP_ENTITY_NAMES = frozenset({"ai", "it", "team", "teams", "팀", "회사", "company", "model", "모델", "people",
                               "service", "product", "제품", "조직", "organization", "user", "users", "data"})

# tuned on sample_docs questions
# "X를 개발한 조직은 …", "Atlas를 만든 팀", "the team that owns X": an entity described through a relation, then
# asked about. Korean: any verb in its adnominal form (last syllable with a final ㄴ — 한, 만든, 쓴, 이끈 — or 는/던)
# before a noun for a person, team or organisation (language, not tuned).
_ADNOMINAL = "".join(chr(c) for c in range(0xAC00, 0xD7A4) if (c - 0xAC00) % 28 == 4) + "던"
RELATIVE_HOP_PATTERN = re.compile(
    rf"[가-힣]*[{_ADNOMINAL}]\s+(?:조직|팀|회사|연구자|연구진|기관|부서|연구소|사람|저자|개발자|팀장|곳)"
    r"|\b(?:team|company|organi[sz]ation|person|researcher|group|lab|department|people)\s+(?:that|which|who)\b"
    # Chinese (language): "开发 X 的机构", "负责 X 的团队", "X 由谁领导"
    r"|(?:开发|研发|建立|创建|制作|负责|运营|管理|使用|采用|领导)[^，。？?]{0,30}?的(?:团队|机构|组织|公司|部门|小组|人|负责人)"
    r"|由谁")
# A question for a value or parameter is a factual lookup (seed 000: "vector — definitions, parameters")
VALUE_QUESTION = re.compile(
    r"\b(what|which) (value|number|parameter|setting|version)s?\b|\bhow (many|much|long|often|big)\b"
    r"|\b(value|parameter)s? of\b|몇|얼마|며칠|값은|값이|파라미터|매개변수|설정값|多少|几|参数|数值")
CHAIN_PATTERN = re.compile(r"\S+의\s+\S+의\s+")  # "A의 B의 C": a path through two relations
HOW_CONNECTED = re.compile(r"\bhow (is|are) .+ (connected|related|linked) (to|with)\b")

# language: asking for the system another takes its data from ("X가 … 읽어 오는 시스템", "X读取数据的系统"): "uses" (both lists)
DATA_FLOW_CUES = ("읽어오", "읽어 오", "가져오", "가져 오", "불러오", "불러 오", "끌어오", "끌어 오", "받아오", "받아 오",
                  "pull", "fetch", "relies on", "rely on", "leans on", "lean on", "depends on", "depend on", "读取",
                  "调取", "获取", "拉取", "依赖", "other system", "another system", "of our systems", "from which system",
                  "다른 시스템", "어느 시스템에서", "其他系统", "另一个系统", "别的系统", "从哪个系统")
# language: asking for the team a person is on ("the team she's on", "her team", "她所在团队"): "belongs_to" (both lists)
TEAM_MEMBER_CUES = ("team she", "team he", "her team", "his team", "所在团队", "所在的团队", "所在部门", "所在的部门")

# language: Chinese units whose head is "<unit>长" (组长, 部长, 所长 …), not before 期 / 久 / 远 ("团队长期负责"); both lists
ZH_HEAD_OF = "组部所院队科处"
ZH_HEAD_TITLE_END = "(?![期久远])"
ZH_HEAD_TITLE = f"[{ZH_HEAD_OF}]长{ZH_HEAD_TITLE_END}"

# Which relation a question asks about ("어느 도시" → located_in): graph facts whose predicate fills an asked
# relation count its cue word as covered, so "Hanbit Research는 대전에 있다" answers "어느 도시" without the word "도시".
RELATION_SLOTS: tuple[tuple[str, str], ...] = (
    ("located_in", r"도시|어디|위치|본사|지역|소재|city|where|located|based|headquarter|哪里|位于|城市|总部"),
    ("leads", r"팀장|이끄|이끌|이끈|리더|책임자|대표|lead|head|manager|ceo|负责人|领导|带领|主管|" + ZH_HEAD_TITLE),
    ("belongs_to", r"소속|대학|출신|교수|구성원|member|belong|works? (?:at|for)|universit|affiliat|professor|属于|大学|"
                   + "|".join(rf"\b{re.escape(c)}s?\b" if c.isascii() else re.escape(c) for c in TEAM_MEMBER_CUES)),
    ("developed_by", r"개발|만든|만들|제작|제안|발표|공개|developed|built|created|made|designed|proposed|invented|"
                     r"开发|研发|制造|提出|建立|建造|打造|制作|创建|" + "|".join(MAKER_CUES)),
    ("founded_by", r"설립|창업|창립|founded|founder|创立|创始"),
    ("owns", r"담당|맡|운영|소유|owns?|responsible|maintain|runs?|operat|负责(?!人)"),  # 负责人 is the person in charge (leads)
    ("uses", r"사용|쓰는|쓰인|쓰이|활용|이용|탑재|uses?|using|used|使用|采用|用于|"
             + "|".join((r"\b" if c.isascii() else "") + re.escape(c) for c in DATA_FLOW_CUES)),
    ("part_of", r"일부|속한|part of|部分"),
)

# tuned on sample_docs questions: aggregation words
# Aggregation words: a question asking for an average / total needs that statistic in the text (seed 002:
# aggregation questions are answered by tables, not by a policy that merely mentions the topic).
STATISTIC_TERMS = frozenset("평균 합계 총합 총계 비율 중앙값 통계 average mean median total sum percentage ratio "
                            "statistics 平均 总计 合计 比例 中位数 统计".split())

# language: Korean endings and question fillers (not fitted to a corpus)
# Korean endings stripped from a question's key terms so that "판정되면", "갱신해", "팀의" meet "판정", "갱신", "팀".
# Long endings always; verb endings only from stems of 2+ syllables; particles only from 2-syllable words
# (textutil already strips them from longer ones) — "휴가" and "문서" stay whole.
_KO_LONG_ENDINGS = tuple(sorted((
    "하려고", "하는데", "하다고", "되다고", "다고", "되면", "하면", "하고", "해야", "했는지", "하는지", "는지", "인지",
    "해서", "돼서", "까지", "했던", "됐던", "되는", "됐어", "했어", "돼야", "됐습니다", "되었어",
    # the spoken copula after a noun ("몇 명이었어", "몇 개였어", "제품이에요"): the noun is the term
    "이었어요", "이었어", "였어요", "였어", "이에요", "예요",
), key=len, reverse=True))
_KO_VERB_ENDINGS = ("해", "했", "되", "돼", "됐", "면", "고", "야")  # 돼 / 됐: 되어 / 되었 ("취소돼요", "변경됐")
_KO_PARTICLES = ("이", "의", "에", "을", "를", "은", "는")
_FILLER_PREFIXES = ("얼마", "며칠", "몇", "뭐", "무엇", "어떻", "누구", "어디", "언제", "어느", "어떤", "왜")
_FILLER_WORDS = frozenset(
    "있 있어 있을 있을까 있나 없 알 알려 할 하 되 수 년 월 일 하는데 하려고 주세요 싶 싶어 궁금 생각 "
    "much many use uses used using does "
    "value values thing things way kind".split())
# language: words that say a question is a comparison ("각각 … 어떻게 다른가요", "compare", "区别") describe the shape of
# the answer, not its content: they are not key terms (the answer quotes one sentence per compared name instead)
COMPARISON_WORDS = frozenset(
    "각각 다른 다른가 다르 차이 차이점 비교 비교해 compare comparison difference differences differ different versus vs "
    "each both 分别 各自 区别 不同 比较 差别".split())
# clause ends: a comma or semicolon (not inside a number list "4, 8"), Korean "…는데 / …지만", English "and / but"
_CLAUSE_SPLIT = re.compile(r"(?<!\d)[,;，；]|[,;，；](?!\s*-?\d)|(?<=[가-힣])(?:는데|인데|지만)(?=[\s,])|\s(?:and|but)\s")
# the question sentence after a statement is searched on its own (parts.asking_query, retrieval) and is the focus of
# grading and selection (coverage.question_terms) only with this many key terms (chosen, not tuned: "What would that
# cost us?" has one and says nothing without the statement before it)
ASKING_MIN_TERMS = 3
# language: question words of ko / en / zh; with a question mark, the cues that a clause asks
_QUESTION_WORDS = (r"얼마|며칠|몇|무엇|뭐|누구|누가|어디|언제|어느|어떤|어떻게|왜|"
                   r"\b(what|which|who|whom|whose|when|where|why|how)\b|什么|哪|谁|多少|几|怎么|如何|为什么")
_QUESTION_CUES = re.compile(r"[?？]|" + _QUESTION_WORDS)

# measured on the bundled e5 embedder over sample_docs
# Similarity ranges in which each embedder family spreads "unrelated" .. "on topic" (rescaled to 0..1).
# multilingual-e5 compresses cosine similarities into roughly 0.75-0.95.
# e5: chunk vectors pooled from sentence vectors (rag.sentences) sit higher than whole-chunk vectors did; on the
# sample_docs questions the old whole-chunk range (0.80, 0.92) maps to (0.824, 0.919) (linear fit, r = 0.90).
# A knowledge base ingested before sentence vectors keeps whole-chunk vectors and is graded a little stricter.
SIMILARITY_RANGES = {"e5": (0.825, 0.92), "openai": (0.20, 0.60), "default": (0.30, 0.80)}

# grading details (pre-existing, tuned on sample_docs): a graph fact's score = entity + relation + key-term weights;
# an incorrect document's score is capped; a capped "not quite correct" score sits this far below correct_score;
# a document missing a number of the question stays ambiguous down to this share of ambiguous_score
GRAPH_FACT_WEIGHTS = (0.35, 0.35, 0.30)  # names a question entity, fills an asked relation, key-term coverage
INCORRECT_SCORE_CAP = 0.2
BELOW_CORRECT = 0.05
MISSING_NUMBER_AMBIGUOUS_SHARE = 0.8
# graph quality = coverage of the asked relations × (GRAPH_QUALITY_FLOOR + (1 − floor) × key-term coverage)
GRAPH_QUALITY_FLOOR = 0.5
# the context quality of documents none of whose sentences states a value of the asked kind (answertype.fit: "how
# many days" and every sentence holds minutes or no number) is this share of the score the words and meaning give
# it: on topic, but it does not answer. Chosen, not tuned: half, below any threshold a full score would pass
NO_VALUE_QUALITY = 0.5


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
    recent_years: int = RECENT_YEARS

# Semantic evidence (rag/engines/offline/semantics.py). The e5 embedder scores any sentence in the question's own
# language higher than a sentence in another language, so a question ↔ sentence cosine is read as a *margin* over
# the question's cosine with everyday sentences of the sentence's language (LANGUAGE_ANCHORS; not fitted to any
# corpus: they only give each language's floor).
# Tuned on sample_docs questions and the test documents of tests/test_judgement_*.py: the answering sentence
# has a margin of about 0.10-0.20, unrelated sentences 0.00-0.09.
SEMANTIC_MARGIN_RANGE = (0.04, 0.13)  # margin rescaled to 0..1 ("semantic match")
# same-language wording that misses some key terms: the semantic match fills this share of what they miss. Chosen, then
# checked on the sample_docs questions (key facts unchanged, every trap still below the threshold, none "correct")
SEMANTIC_FILL = 0.5
SEMANTIC_STRONG = 0.75  # a semantic match this strong stands in for missing key terms of another language
LANGUAGE_ANCHORS: dict[str, tuple[str, ...]] = {
    "en": ("The weather was mild and sunny on Tuesday afternoon.", "She painted the fence green last summer.",
           "The train to the coast leaves every hour.", "Our cat sleeps on the sofa most of the day.",
           "The museum shows old maps of the river.", "He ordered soup and bread for lunch."),
    "ko": ("화요일 오후에는 날씨가 맑고 따뜻했다.", "그녀는 지난여름 울타리를 초록색으로 칠했다.", "바닷가로 가는 기차는 한 시간마다 출발한다.",
           "우리 고양이는 하루 대부분을 소파에서 잔다.", "박물관에는 강의 옛 지도가 전시되어 있다.", "그는 점심으로 수프와 빵을 주문했다."),
    "zh": ("星期二下午天气晴朗暖和。", "她去年夏天把篱笆漆成了绿色。", "去海边的火车每小时发一班。", "我们的猫一天大部分时间都在沙发上睡觉。",
           "博物馆展出了这条河的旧地图。", "他午饭点了汤和面包。"),
}

# language: what a question asks for when it asks for a cause, a procedure or a comparison; the same cues mark a
# heading that scopes the answer ("## Root cause", "## 원인", "## 原因"). Sentences under a matching heading are
# preferred as evidence (bonus added to their rank).
# language (not tuned): the ways a question asks what really lay behind an event, beyond "why" and "cause" ("what went
# wrong", "what was behind it", "were down to / blamed on", "was that really it, or", "뭐가 문제였", "어쩌다", "怎么会", "X 때문이었나",
# "뭐 때문에"; not "애들 때문에 침대를 넣으면": a reason the question states, like "because"); read by INTENT_CUES["cause"], answertype
CAUSE_ASKED = (r"\bwent wrong\b|\b(?:was|is|were|really|actually) behind\b|\b(?:was|were|is|are|been) down to\b|"
               r"\bblamed? (?:on|for)\b|\bto blame\b|\bhow come\b|"
               r"\b(?:was|is) (?:that|it) really (?:it|so|true|what happened), or\b|"
               r"어째서|어쩌다|(?:뭐|무엇|무슨|어떤\s?게)가?\s?문제(?:였|이었|였던|인|야|예요|입니까|가)|때문(?=\s?(?:이|인|일|아니|입|에요))|(?:뭐|무엇|무슨|어떤|누구)\S{0,4}(?:\s\S{1,4})?\s?때문|"
               r"为啥|怎么会|怎么回事|问题出在|出了什么问题|什么问题|怎么[^？?，,。]{0,20}[没不]")
INTENT_CUES: dict[str, str] = {
    "cause": r"\bwhy\b|\bcause[sd]?\b|\breasons?\b|\broot.cause|원인|이유|왜|原因|为什么|为何|起因|" + CAUSE_ASKED,
    # not a bare "어떻게" / "如何": "근무 시간은 어떻게 되나요?" asks for a value, not a procedure
    "procedure": r"\bhow (?:do|can|should) (?:i|we|you)\b|\bhow to\b|\bsteps?\b|\bprocedure\b|\bprocess\b|"
                 r"\bfollow.up\b|\bfix(?:ed)?\b|방법|절차|순서|조치|대응|步骤|流程|措施|处理方法",
    "comparison": r"\bcompar|\bdiffer|\brespectively\b|\bversus\b|\bvs\.?\b|차이|비교|다른 점|다른가|다릅|다르게|각각|"
                  r"区别|比较|不同|分别",
}
INTENT_HEADING_BONUS = 0.35  # rank bonus of a sentence under a heading of the asked intent
# language: a question whose answer is a number, a date or a time ("how many", "when", "values", "언제", "几月");
# answer sentences that state a number rank higher (VALUE_BONUS). Wider than VALUE_QUESTION, which also routes.
WANTS_NUMBER = re.compile(
    VALUE_QUESTION.pattern + r"|\bwhen\b|\bvalues?\b|\bwhat (?:year|month|day|date|time)\b|언제|며칠|몇|"
    r"何时|什么时候|几月|哪年|哪一年")
# partial answers (chosen, not tuned: 2026-12-02): at most this many sentences of documents in another language than
# the question, matched by meaning only (the search of the other languages), listed as unconfirmed candidates
MEANING_ONLY_QUOTES = 2
# partial answers (chosen, not tuned: 2026-12-04): at most this many (+1 per further part asked) sentences that answer
# selection ranks best over the correct / ambiguous documents (what a normal answer quotes), listed first, unconfirmed
CLOSEST_QUOTES = 2
SEMANTIC_RANK_WEIGHT = 0.3  # answer sentences: semantic match added to every sentence's rank (ties, paraphrases)
VALUE_BONUS = 0.15  # answer sentences: a number, when the question asks for a value (몇 / how many / 多少)
# answer sentences (pre-existing, tuned on sample_docs): a further sentence must add a key term and rank >= this; a
# second source is added when it ranks >= max(this, SECOND_SOURCE_SHARE x the best)
SENTENCE_MIN_RANK = 0.25
SECOND_SOURCE_SHARE = 0.6
# bonuses need some relevance first (chosen): a number counts when the sentence is on topic (semantic > 0.5 or a key
# term), a heading of the asked kind when the sentence is not off topic (semantic > 0.3 or a key term)
VALUE_BONUS_MIN_SEMANTIC, SECTION_BONUS_MIN_SEMANTIC = 0.5, 0.3

# Language-centred sentence similarity (rag.sentences.SentenceMatrix.stats; used by the sentence channel of
# retrieval, rag/tools/vector.py, and by the semantic evidence of grading / evaluation / selection). A question ↔
# sentence cosine is read as a z-score among the knowledge base's sentences of the same script language (Hangul / Han
# / Latin): e5's same-language bias (~0.02-0.05 of cosine) cancels. Chosen, not tuned: a language needs this many
# sentences for its own mean / spread (fewer: it borrows the everyday-sentence floor, LANGUAGE_ANCHORS, shifted by the
# other languages' offset); the spread is floored so a near-constant language cannot explode the z-scores.
SENTENCE_STATS_MIN_COUNT = 20
SENTENCE_STATS_MIN_STD = 0.015
# The semantic match of grading / evaluation / selection is the language-centred z-score rescaled from this range to
# 0..1. Converted from SEMANTIC_MARGIN_RANGE (0.04, 0.13 over the everyday floor): on sample_docs questions the
# knowledge base's mean sits ~0.04 above that floor with a spread of ~0.024 (measured over the 32 questions and 11
# cross-lingual translations of them written for tests), so the old range is z 0..3.75.
SEMANTIC_Z_RANGE = (0.0, 3.75)
# without a loaded sentence matrix (no retrieval yet in this process): floor + offset, spread (measured, as above)
SENTENCE_FALLBACK_OFFSET = 0.04
SENTENCE_FALLBACK_STD = 0.024

# language: a question that asks how to do something (a procedure) without a cue word of INTENT_CUES: "어떻게" / "怎么" /
# "如何" followed by a verb (not "어떻게 되나요" / "怎么样", which ask for a value or an opinion), "what should I do".
PROCEDURE_QUESTION = re.compile(
    # "怎么 … 没 / 不" asks why something did not happen ("怎么一个警报都没响"): a cause (CAUSE_ASKED), not a procedure
    r"어떻게\s*(?!되|돼|다른|다르|달라)[가-힣]+|(?:怎么|怎样|如何)(?!样|回事)(?![^？?，,。]{0,20}[没不])[\u4e00-\u9fff]|"
    r"\bwhat (?:should|do|must) (?:i|we|you) (?:do|need to do)\b|\bhow (?:do|can|should|would|must) (?:i|we|you|one|"
    r"employees|staff|members|users|customers|visitors)\b|\bhow (?:can|should|must|do) (?:a|an|the) [a-z\-]+\b|\bwhat (?:are|is) the (?:steps?|procedure|process)\b")
# answer selection for a procedure question (chosen, checked on the procedure documents of
# tests/test_sentence_channel.py, not tuned on a question set): the list items (numbered or bulleted lines) of the
# best-matching section are quoted in document order, up to this many, when that section's best sentence ranks at
# least this share of the best sentence overall
PROCEDURE_MAX_STEPS = 8
# a cause question answered from a section of that kind ("## Root cause", "## 원인") quotes up to this many of its
# sentences, the best one first, then the rest in document order (chosen like PROCEDURE_MAX_STEPS, not tuned: a
# root-cause paragraph often rules out the first explanation before it states the cause; checked on the dev corpora,
# docs/evaluation.md, fourteenth session)
CAUSE_SECTION_MAX = 6
# answer selection (chosen, not tuned: one rank point is a sentence's full key-term coverage): a title or section line
# of a plain-text document (a line alone between blank lines, no sentence-final punctuation) names a topic and
# states nothing, so it ranks this much lower than a sentence (a procedure's lead line keeps its rank)
TITLE_PENALTY = 0.3
PROCEDURE_LIST_SHARE = 0.6
# a question asking for a value (WANTS_NUMBER) judged partly by meaning (key terms of another language): a document is
# "correct" only when one of its this-many best-matching sentences states a number (chosen: the answer selection
# quotes up to OfflineRules.max_evidence = 3 sentences; checked on sample_docs questions, unchanged, and on
# translations of the sample traps written for tests)
VALUE_EVIDENCE_TOP = 3

# language: what joins the two things a comparison question compares ("A와 B", "A and B", "A和B", "A vs B"); each side
# is then matched by meaning on its own, so the answer quotes one sentence per side in any language
COMPARED_JOIN = re.compile(r"(?<=[가-힣A-Za-z0-9])(?:와|과|하고|이랑|랑)\s+|\s+(?:and|vs\.?|versus|or)\s+|(?:和|与|跟|同|还是)")
# a comparison side is matched when its best sentence's semantic score reaches this (chosen: SEMANTIC_STRONG's scale,
# checked on the comparison documents written for tests/test_judgement_procedure.py)
COMPARED_SIDE_MIN = 0.5

# Checkability of a key term in a text (coverage.text_scripts), language, not tuned: a text "is written in" a script
# when one of its sentences has at least this share of its letters in that script; a Hangul syllable or a Han
# character carries about as much as this many Latin letters (a word of 5-6 letters ~ 2 syllables)
SCRIPT_MIN_SHARE = 0.4
# LATIN_LETTERS_PER_CJK = 2.5: defined in rag.textutil (imported above), one value with textutil.dominant_language
SCRIPT_MIN_TEXT_SHARE = 0.2  # ... and such sentences hold at least this share of the text's letters
SCRIPT_MIN_LETTERS = 10  # a sentence shorter than this (in Latin-letter units) does not decide the script of a text

# language, not tuned: the asked attribute of a question (attribute.asked_attribute) — the noun a value question word
# attaches to ("위약금을 얼마", "how many seats", "what is the fee for …", "总预算是多少"). Words that only name the unit or
# the kind of the answer (a count, a time span, "people") are not attributes: the answer states them as a unit.
ATTRIBUTE_SKIP = frozenset(
    "수 것 명 개 건 번 회 시 분 초 살 일 년 월 곳 가지 정도 약 총 모두 평균 최대 최소 대략 "
    "day days week weeks month months year years hour hours minute minutes second seconds time times people person "
    "persons percent one ones kind kinds type types number amount total setting settings parameter parameters "
    "value values detail details information option options requirement requirements rule rules condition conditions "
    "时间 人数 数量 一共 总共 每年 每月 每天 每人 每次 大约 大概 约为 左右 平均 最多 最少 至少 通常 一般 "
    "approximately roughly about around average usually period periods duration length span".split())
# grading (Grader._stated_apart), chosen, not tuned: a sentence that states the asked attribute is read with its
# headings and this many sentences either side; it must contain every number of the question the chunk contains and
# at least this share of the chunk's other matching key terms (else the chunk covers the question only when pooled)
COOCCUR_WINDOW = 2
COOCCUR_MIN_SHARE = 0.67
# Answer types (rag/engines/offline/answertype.py: what a question asks for — a year, a date, a time of day, a
# quantity in days / people / minutes, money …, and the values each sentence states). Chosen, then checked on the
# test documents of tests/test_answer_selection.py and on sample_docs questions (training; unchanged), and measured on
# the dev sets (unseen_culture_foundation, heldout_b_ferry_operator: answers that missed a fact their graded documents
# held); not fitted to any corpus's wording:
TYPE_BONUS = 0.3  # rank bonus of an on-topic sentence stating a value of the asked kind in the asked unit
CAUSE_BONUS = 0.15  # rank bonus of an on-topic sentence that states a cause (because / 때문 / 因此 …), cause question
# chosen (VALUE_BONUS's size): rank bonus of a table row / "label: value" line whose label is an asked word (not for a
# cause / procedure / comparison question: a section answers those)
LABEL_BONUS = 0.15
# a sentence that states the asked type is quoted when the best sentence does not: first, when it ranks at least
# this share of the best; after the best, when it ranks at least TYPE_SAME_DOC_SHARE of it and comes from the best
# sentence's document (the rest of the document that matched best)
TYPE_WINDOW_SHARE = 0.55
TYPE_SAME_DOC_SHARE = 0.3
# a best sentence that states the asked kind of value: one more sentence stating another value of that kind is quoted
# when it ranks at least this share of the best (two candidate years, dates, amounts: the reader sees both)
TYPE_SECOND_SHARE = 0.7
# language: a sentence that starts with one of these continues the one before it ("연체료는 받지 않는다. 대신 …"): quoted
# with it when the one before is quoted
CONTINUATION_START = re.compile(
    r"^(?:대신|하지만|그러나|그런데|다만|단,|단 |그래서|따라서|이 때문에|이때|instead\b|however\b|but\b|except\b|unless\b|"
    r"otherwise\b|therefore\b|as a result\b|in that case\b|但是|但|不过|而是|否则|因此|所以|只是)", re.I)
TABLE_MAX_ROWS = 8  # a table header row chosen as evidence: the rows under it quoted instead, up to this many
# Typed semantic evidence (grading.Grader.confirmed_semantic), chosen, not tuned: a document judged partly by meaning
# (key terms of another language) whose sentence among its VALUE_EVIDENCE_TOP best by meaning matches at least
# TYPED_MIN_SEMANTIC (VALUE_BONUS_MIN_SEMANTIC's scale) and states a value of the asked kind in the asked unit
# (answertype.fit STRONG), or a value of the asked kind next to a language-independent anchor of the question (its
# numbers, Latin names, romanized names) in the sentence or its heading: the meaning is confirmed, and that sentence's
# semantic match is filled by this share of what it lacks (meaning + value agree: the sentence says what is asked)
TYPED_MIN_SEMANTIC = 0.5
TYPED_CONFIRM_FILL = 0.5
# Several correct documents hold typed evidence: the best one alone counts (Quality.typed, the agent answers from it)
# when its confirmed score leads the next by at least this much (0.10 of raw sentence similarity at the fill above)
# and the question asks one value. Chosen on the dev corpora (unseen, heldout_b..h; all read), not on a frozen set.
TYPED_LEAD = 0.05
# A plain-text heading in capitals ("HOLIDAY BOARDING") or a numbered article line ("제3조 (폐액)") after a blank line
# is a title line even when its paragraph follows without a blank line (answer selection never quotes it as the
# answer). Not tuned: a heading is short.
from rag.sentences import PLAIN_HEADING_MAX as HEADING_MAX  # noqa: E402  (one length for both: rag.sentences)
