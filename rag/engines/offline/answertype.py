"""What kind of value a question asks for, and which values a sentence states (ko / en / zh, general patterns).

``asked_type("ParcelHub 系统是哪一年上线的？")`` → a year; ``asked_type("How many days before the workshop …")`` → a
quantity in days; ``asked_type("수작업 검표로 바뀐 승객은 몇 명")`` → a quantity of people. ``stated_values(sentence)``
finds years, dates, weekdays, times of day, amounts of money, percentages and quantities with their unit ("430 名",
"90 minutes", "7일", "2.5m"). ``fit(asked, sentence)`` says how well a sentence answers the asked type:

- ``STRONG``: it states a value of the asked kind, in the asked unit when the question names one (days, people …);
- ``WEAK``: a value of the asked kind whose unit the question leaves open;
- ``OTHER``: it states values, but none of the asked kind or unit ("90 minutes" for "how many days");
- ``NONE``: no value at all.

A cause question is answered by a sentence that states a cause: a causal connective (because / due to / 때문 /
因为 / 因此 …) — ``states_cause``. Every word list here is a plain fact of the language (question words, units,
counters, connectives), not fitted to a corpus.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from rag.engines.offline.rules import CAUSE_ASKED
from rag.textutil import dominant_language

STRONG, WEAK, OTHER, NONE = 3, 2, 1, 0

# ---- units: class → words (language) ---------------------------------------------------------------------------------
# Korean / Chinese counters follow the number directly; English unit words follow it after a space.
UNIT_WORDS: dict[str, tuple[str, ...]] = {
    "day": ("일", "日", "天", "영업일", "工作日", "个工作日", "個工作日", "days", "day", "working days", "business days",
            "calendar days"),
    "week": ("주", "주일", "주간", "周", "星期", "weeks", "week"),
    "month": ("개월", "달", "个月", "個月", "months", "month"),
    "yearspan": ("년", "년간", "年", "years", "year"),
    "hour": ("시간", "小时", "個小時", "个小时", "钟头", "hours", "hour", "hrs", "hr", "h"),
    "minute": ("분", "分钟", "分鐘", "minutes", "minute", "mins", "min"),
    "second": ("초", "秒", "seconds", "second", "secs", "sec"),
    "person": ("명", "인", "사람", "人", "名", "位", "people", "persons", "person", "passengers", "visitors", "members",
               "employees", "staff", "students", "participants", "applicants", "guests", "customers", "users",
               "workers", "readers", "children", "adults", "volunteers"),
    "age": ("살", "세", "岁", "歲", "years old", "year-old"),
    "money": ("원", "만원", "만 원", "억원", "won", "krw", "usd", "eur", "dollars", "dollar", "euros", "euro", "yuan",
              "rmb", "cny", "元", "块", "塊", "美元", "欧元", "韩元", "万元", "달러", "유로", "위안", "美金", "日元", "円", "엔화"),
    "percent": ("%", "퍼센트", "프로", "percent", "per cent"),
    "length": ("km", "m", "cm", "mm", "미터", "킬로미터", "米", "公里", "meters", "metres", "kilometers", "kilometres"),
    "weight": ("kg", "g", "t", "톤", "킬로그램", "그램", "吨", "公斤", "千克", "克", "tons", "tonnes", "kilograms"),
    "times": ("회", "번", "차례", "次", "遍", "times"),
    # a multiple of something ("통상임금의 1.5배", "两倍"): "몇 배 / 多少倍 / 几倍" ask for it, not for the money it
    # multiplies
    "multiple": ("배", "倍"),
    # counters of things: what is counted ("9,600 册" are books, "4 台" machines), so "how many books" is not
    # answered by a count of machines; "개 / 个 / items" count anything
    "volume": ("권", "册", "冊", "本", "books", "volumes", "copies"),
    "machine": ("대", "台", "臺", "machines", "units", "vehicles", "devices", "kiosks", "gates"),
    "case": ("건", "件", "笔", "筆", "cases", "requests", "orders", "bookings", "reservations", "reports", "complaints",
             "transactions", "applications"),
    "vessel": ("척", "艘", "vessels", "ships", "boats", "ferries"),
    "site": ("곳", "군데", "개소", "家", "座", "所", "sites", "branches", "stores", "shops", "locations", "offices"),
    "item": ("개", "장", "편", "종", "개국", "석", "席", "个", "個", "张", "張", "项", "項", "种", "種", "套", "items", "pieces",
             "tickets", "seats", "kinds", "types"),
}
COUNTED = frozenset({"volume", "machine", "case", "vessel", "site", "item"})
DURATION_UNITS = frozenset({"day", "week", "month", "yearspan", "hour", "minute", "second"})
_CURRENCY_SIGN = "$€£¥₩"

_NUM = r"\d+(?:[.,]\d+)*"
_ZH_NUM = r"[一二三四五六七八九十两百千万半]+"
_KO_NUM = r"(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉|열|스무|서른)"
_EN_NUM = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
           r"sixty|ninety|hundred)")
# Korean words that are a count of days by themselves (language; not 하루, which mostly means "per day": 하루 근무 시간)
_KO_DAYS = re.compile(r"(?<![가-힣])(?:이틀|사흘|나흘|닷새|엿새|이레|열흘|보름)")


def _unit_alternation(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_ALL_UNITS = sorted({(w, cls) for cls, ws in UNIT_WORDS.items() for w in ws}, key=lambda x: -len(x[0]))
_UNIT_OF = {}
for _w, _cls in _ALL_UNITS:
    _UNIT_OF.setdefault(_w, _cls)
_LATIN_UNIT = re.compile(r"[a-z% -]+")
# a number (digits, Chinese or Korean numerals) and the unit word after it
_QUANTITY = re.compile(
    rf"(?<![A-Za-z0-9.\-])(?P<n>{_NUM}|{_ZH_NUM}|{_KO_NUM}|\b{_EN_NUM})\s?(?:여|余|多|여\s)?\s?"
    rf"(?P<u>{_unit_alternation(tuple(w for w, _ in _ALL_UNITS))})"
    r"(?P<after>[A-Za-z]?)", re.I)
_MONEY_BEFORE = re.compile(rf"[{_CURRENCY_SIGN}]\s?{_NUM}|\b(?:krw|usd|eur|rmb|cny)\s?{_NUM}", re.I)

_MONTHS_EN = ("january|february|march|april|may|june|july|august|september|october|november|december|"
              "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_YEAR = re.compile(r"(?<![\d.,:])(?:1[6-9]|20|21)\d\d(?!\d|[.,]\d)(?:\s?년|年)?")
_DATE = re.compile(
    rf"\d{{1,2}}\s?월\s?\d{{1,2}}\s?일|\d{{1,2}}\s?月\s?\d{{1,2}}\s?[日号號]|\d{{4}}-\d{{1,2}}-\d{{1,2}}|"
    rf"\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS_EN})\b|\b(?:{_MONTHS_EN})\.?\s+\d{{1,2}}\b|"
    rf"\b(?:{_MONTHS_EN})\s+\d{{4}}\b|\d{{4}}\s?년\s?\d{{1,2}}\s?월(?:\s?\d{{1,2}}\s?일)?|"
    rf"\d{{4}}\s?年\s?\d{{1,2}}\s?月(?:\s?\d{{1,2}}\s?[日号號])?|\d{{1,2}}\s?월(?!\s?\d)|"
    rf"\d{{1,2}}\s?月(?![\d份])", re.I)
_WEEKDAY = re.compile(
    r"[월화수목금토일]요일|(?:星期|周|週|礼拜|禮拜)[一二三四五六日天]|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|"
    r"\b(?:weekdays?|weekends?)\b|평일|주말|工作日|周末", re.I)
_TIME = re.compile(
    r"(?<!\d)\d{1,2}:\d{2}(?!\d)|(?:오전|오후|새벽|저녁|밤|낮)\s?\d{1,2}\s?시|\d{1,2}\s?시(?:\s?\d{1,2}\s?분|\s?반)?(?!간)|"
    r"(?:上午|下午|早上|晚上|中午|凌晨)?\s?(?:\d{1,2}|[一二三四五六七八九十]+)\s?[点點](?:\s?\d{1,2}\s?分|半|钟)?|"
    r"\b\d{1,2}(?:[:.]\d{2})?\s?(?:a\.?m\.?|p\.?m\.?)(?![a-z])|\bnoon\b|\bmidnight\b|정오|자정", re.I)
_PERCENT = re.compile(rf"{_NUM}\s?(?:%|퍼센트|percent|per cent)|百分之", re.I)


# English puts adjectives between a count and what it counts ("212 online bookings"): a number, one lower-case word
# that is not a unit, and a unit word of people or counted things
_COUNT_NOUNS = tuple(w for cls in ("person",) + tuple(sorted(COUNTED)) for w in UNIT_WORDS[cls] if re.fullmatch(r"[a-z]+", w))
_MODIFIED_COUNT = re.compile(rf"(?<![A-Za-z0-9.\-]){_NUM}\s+(?P<mod>[a-z][a-z\-]+)\s+(?P<u>{_unit_alternation(_COUNT_NOUNS)})\b")
# a rate in time (language): "주 2회", "일주일에 세 번", "매일", "twice a week", "3 times per month", "daily", "每周两次",
# "一周三天", "每天"
_PERIOD_KO = r"(?:주|매주|일주일에?|한\s?주에|월|매월|한\s?달에|달에|하루에?|매일|연|매년|1년에|일\s?년에)"
_PERIOD_ZH = r"(?:每周|每週|一周|一週|每星期|每月|一个月|每天|每日|一天|每年|一年)"
_FREQUENCY = re.compile(
    rf"{_PERIOD_KO}\s?(?:{_NUM}|{_KO_NUM})\s?(?:회|번|차례|일)|"
    rf"{_PERIOD_ZH}\s?(?:{_NUM}|{_ZH_NUM})\s?(?:次|回|天|日)|"
    rf"(?:{_NUM}|{_ZH_NUM})\s?(?:次|回)\s?(?:每|/)\s?(?:周|週|月|天|年)|"
    rf"\b(?:once|twice|thrice|(?:{_NUM}|{_EN_NUM})\s(?:times|days))\s(?:a|per|each|every)\s(?:day|week|month|year)\b|"
    r"\b(?:daily|weekly|monthly|yearly|annually|every\s(?:day|week|month|year|other\s\w+))\b|"
    r"매일|매주|매월|매년|每天|每周|每週|每月|每年", re.I)
# a person named in a sentence (language, not names): a name with a title after it ("김민수 팀장", "王海林组长",
# "Liwei Chen, head of …"), a courtesy title before it ("Dr. Kim", "Ms. Park"), or two to three capitalised words
# that are not a place / organisation ("Liwei Chen"); a role word alone ("the manager") names no one
_KO_TITLES = r"(?:팀장|부장|과장|차장|대리|실장|본부장|국장|관장|원장|소장|센터장|대표|이사|사장|회장|주임|사원|선임|책임|매니저|씨|님|교수|박사|선생님?)"
_ZH_TITLES = r"(?:组长|組長|经理|經理|主任|馆长|館長|部长|部長|处长|處長|科长|科長|院长|院長|所长|所長|老师|老師|先生|女士|教授|博士|总监|總監|负责人|董事长|总经理)"
# language: English nouns that end an organisation's or a place's name, not a person's ("Customer Team")
_ORG_NOUNS = (r"(?:Team|Teams|Group|Office|Department|Division|Unit|Desk|Committee|Library|Museum|Center|Centre|"
              r"Ferries|Ferry|Company|Bank|Hall|Club|Association|Foundation|Institute|University|College|School|"
              r"Hospital|Station|Terminal|Port|Island|Airlines|Lines|Systems|System|Services|Service|Corp|Inc|Ltd|"
              r"Press|Media|Studio|Studios|Park|Street|Road|Bridge|City|County|Province)")
_PERSON = re.compile(
    rf"(?<![가-힣])[가-힣]{{2,4}}\s?{_KO_TITLES}|[\u4e00-\u9fff]{{2,3}}\s?{_ZH_TITLES}|"
    # a Chinese / Korean name with its romanisation after it: "王海林（Hailin Wang）", "김하늘(Haneul Kim)"
    # (not an organisation's: "青石物流（Qingshi Logistics）", "客户服务组（Customer Team）")
    rf"[\u4e00-\u9fff가-힣]{{2,3}}\s?[（(]\s?[A-Z][a-z]+\s(?!{_ORG_NOUNS}\b)[A-Z][a-z]+\s?[）)]|"
    # a title before a Chinese name: "组长王海林（", "馆长王芳，"
    rf"(?:{_ZH_TITLES}|[长長])[\u4e00-\u9fff]{{2,3}}(?=[（(，,。、\s])|"
    r"\b(?:Mr|Mrs|Ms|Dr|Prof)\.?\s[A-Z][a-z]+|"
    r"\b[A-Z][a-z]+(?:\s[A-Z][a-z]+){1,2}\s?(?:,|\()\s?(?:the\s)?(?:head|manager|director|lead|leader|chief|chair|"
    r"officer|coordinator|curator|librarian|engineer|captain|supervisor|president|ceo|cto)\b|"
    r"\b(?:led|headed|managed|run|chaired|signed|approved|written|developed|founded|supervised|coordinated)\sby\s[A-Z][a-z]+"
    r"(?:\s[A-Z][a-z]+)?|\b[A-Z][a-z]+\s[A-Z][a-z]+\s(?:leads|heads|manages|runs|chairs|oversees|supervises)\b")
# a place stated (language): a floor ("3층", "2F", "3rd floor", "二楼"), a room / desk / counter / entrance / building
# word after a name, or an address-like number ("… 12번지", "No. 5")
_PLACE = re.compile(
    r"(?:지하\s?)?\d+\s?층|\b[B]?\d+F\b|\b\d+(?:st|nd|rd|th)\sfloor\b|\bfloor\s\d+\b|\bground floor\b|"
    r"(?:地下)?[\d一二三四五六七八九十]+\s?[楼樓层層]|"
    r"[가-힣A-Za-z0-9]+\s?(?:건물|빌딩|센터|데스크|창구|안내소|입구|출구|사무실|로비|매표소|대합실|열람실|회의실|강당|터미널|역|주차장|광장)"
    r"(?![가-힣]{2})|"
    r"\b(?:at|in|on|inside|next to|beside|near|opposite)\s(?:the\s)?(?:[A-Za-z0-9\-]+\s){0,3}(?:desk|counter|office|"
    r"lobby|entrance|exit|building|room|hall|terminal|station|gate|center|centre|floor|wing|platform|booth|kiosk|"
    r"reception|car park|parking)\b|"
    r"[\u4e00-\u9fff]{1,8}(?:服务台|服務台|柜台|櫃台|前台|大厅|大廳|入口|出口|办公室|辦公室|中心|大楼|大樓|码头|碼頭|车站|車站|"
    r"候船室|售票处|售票處|停车场|停車場)|位于|位於", re.I)


@dataclass(frozen=True)
class Value:
    kind: str  # year | date | weekday | time | money | percent | quantity | frequency | person | place
    unit: str = ""  # quantity: a UNIT_WORDS class ("" when the number has no unit word)
    text: str = ""


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def stated_values(sentence: str) -> list[Value]:
    """The values a sentence states, with their kind (and unit for quantities)."""
    s = _norm(sentence)
    out: list[Value] = []
    spans: list[tuple[int, int]] = []

    def add(kind: str, m: re.Match, unit: str = "") -> None:
        out.append(Value(kind, unit, m.group(0).strip()))
        spans.append(m.span())

    for m in _DATE.finditer(s):
        add("date", m)
    for m in _YEAR.finditer(s):
        add("year", m)
    for m in _WEEKDAY.finditer(s):
        add("weekday", m)
    for m in _TIME.finditer(s):
        if not any(a <= m.start() < b for a, b in spans):
            add("time", m)
    for m in _PERCENT.finditer(s):
        add("percent", m)
    for m in _MONEY_BEFORE.finditer(s):
        add("money", m)
    for m in _QUANTITY.finditer(s):
        if any(a <= m.start() < b for a, b in spans):
            continue
        word = m.group("u")
        if m.group("after") or (_LATIN_UNIT.fullmatch(word.lower()) and re.match(r"[a-z]", s[m.end():m.end() + 1] or " ")):
            continue  # "3 member states" is fine, "BM25x" / "2 meters" handled by the longest unit word
        cls = _UNIT_OF.get(word, _UNIT_OF.get(word.lower(), ""))
        if cls == "multiple" and _NOT_MULTIPLE.match(s[m.start("u"):]):
            continue  # "3배송", "2배터리": a word that begins with 배, not a multiple
        if cls == "yearspan" and re.fullmatch(r"(?:1[6-9]|20|21)\d\d", m.group("n")):
            continue  # "2021년" is a year (found above), not a span of years
        if cls == "day" and word in ("日", "일") and re.search(r"(?:月|월)\s?$", s[:m.start()]):
            continue  # the day of a month ("1월 1일", "3月5日"), not a number of days
        out.append(Value("money" if cls == "money" else "percent" if cls == "percent" else "quantity", cls,
                         m.group(0).strip()))
        spans.append(m.span())
    for m in _MODIFIED_COUNT.finditer(s):  # "212 online bookings", "126 adult passengers"
        if any(a <= m.start() < b for a, b in spans) or _UNIT_OF.get(m.group("mod").lower()):
            continue
        out.append(Value("quantity", _UNIT_OF.get(m.group("u").lower(), ""), m.group(0).strip()))
        spans.append(m.span())
    dates = [m.span() for m in _DATE.finditer(s)]
    for m in _FREQUENCY.finditer(s):  # "주 2회", "twice a week", "每周两次", "daily"; not "월 14일" in "3월 14일"
        if not any(a < m.start() < b for a, b in dates):
            add("frequency", m)
    for m in _KO_DAYS.finditer(s):
        if not any(a <= m.start() < b for a, b in spans):
            add("quantity", m, "day")
    for m in re.finditer(rf"(?<![A-Za-z0-9.\-]){_NUM}(?![A-Za-z0-9\-])", s):
        if not any(a <= m.start() < b for a, b in spans):
            out.append(Value("quantity", "", m.group(0)))
    for m in _PERSON.finditer(s):
        out.append(Value("person", "", m.group(0).strip()))
    for m in _PLACE.finditer(s):
        out.append(Value("place", "", m.group(0).strip()))
    return out


# ---- what the question asks ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AskedType:
    kinds: frozenset[str]  # value kinds that answer it
    units: frozenset[str] = field(default_factory=frozenset)  # quantity: the unit classes asked ("" in it: any)
    label: str = ""  # for the trace: "year", "quantity (day)", "cause" …
    cause: bool = False
    until: bool = False  # asks for the end of a period ("언제까지", "until when"): a date with an end marker answers it
    currency: str = ""  # money: the currency the question names ("多少美元", "몇 달러", "in euros"), "" when none

    def __bool__(self) -> bool:
        return bool(self.kinds) or self.cause


NO_TYPE = AskedType(frozenset())

_TEMPORAL = frozenset({"date", "year", "weekday", "time"})
# an amount asked somewhere in the question (a lookahead): "얼마", "多少", "what is", "maximum" … — what makes a
# dimension noun ("체중", "distance") a dimension asked rather than a topic
_AMOUNT_ASKED = (r"(?=.*(?:얼마|몇|多少|几|\bhow much\b|\bwhat(?:'s| is| are| was| were)\b|최대|최소|最多|最少|最低|最高|"
                 r"上限|下限|\blimit\b|\bmax(?:imum)?\b|\bmin(?:imum)?\b))")
# (pattern over the lower-cased question, kinds, unit classes, label); the first that matches decides (language)
_ASKS: tuple[tuple[str, frozenset[str], frozenset[str], str], ...] = (
    (r"\b(?:which|what) year\b|몇\s?년도|어느\s?해|몇\s?년에|哪一?年|几几年|何年", frozenset({"year", "date"}), frozenset(),
     "year"),
    (r"\b(?:which|what) month\b|몇\s?월(?!급)|几月|哪个月|哪一个月", frozenset({"date"}), frozenset(), "month"),
    (r"\bwhat time\b|몇\s?시(?!간)|几点|幾點|什么时间", frozenset({"time"}), frozenset(), "time of day"),
    (r"\b(?:what|which) days? of the week\b|\bwhich days?\b|무슨\s?요일|어느\s?요일|몇\s?요일|星期几|周几|礼拜几|哪几天|哪天",
     frozenset({"weekday", "date"}), frozenset(), "weekday"),
    (r"\bhow old\b|\bwhat age\b|몇\s?살|몇\s?세|几岁|多大年纪|多少岁", frozenset({"quantity"}), frozenset({"age"}), "age"),
    (r"\bwhat percent|\bwhat share\b|몇\s?퍼센트|몇\s?(?!프로[그젝세토필듀모파])프로|몇\s?%|비율|百分之几|比例|percentage|"
     # a stake asked ("지분은 얼마", "各占多少股份", "how big a stake"): a percentage; not a company's name
     # ("…股份有限公司") nor "at stake"
     r"(?=.*(?:얼마|多少|几))(?=.*(?:지분|股份(?!有限)|股权|持股))|"
     r"\bhow (?:big|large|much) (?:a |of a )?(?:stake|shareholding)\b|\bwhat (?:stake|shareholding)\b",
     frozenset({"percent"}), frozenset(), "percent"),
    # … and how soon ("how soon / how quickly / how far in advance", "얼마나 미리"): a time span; not "얼마나 빨리" /
    # "多快", which as often ask for a speed
    (r"\bhow long\b|\bhow (?:soon|quickly|far (?:in advance|ahead))\b|얼마\s?동안|얼마나\s?(?:오래|걸|길|동안|미리)|"
     r"기간은|多久|多长时间|多長時間|多长",
     frozenset({"quantity"}), DURATION_UNITS, "duration"),
    # an amount asked about money ("연회비는 얼마", "how much did they pay", "多少钱"); not a bare "얼마" / "how much" /
    # "多少" ("시정이 얼마 미만", "128 곱하기 12는 얼마"), nor a money word without an amount asked ("연봉 계약은 몇 월에")
    (r"多少钱|几块钱|\bhow much money\b|\bhow expensive\b|\bwhat (?:does|do|did|will|would) .{0,60}\bcost\b|"
     r"\bwhat(?: is|'s| are| was| were) the (?:[\w\-]+ ){0,2}(?:price|cost|fee|fare)s?\b|"
     r"(?=.*(?:얼마|\bhow much\b|多少|几))"
     r"(?=.*(?:\b(?:price|prices|fee|fees|cost|costs|fare|fares|pay|paid|pays|charge|charged|budget|spend|spent|salary|"
     r"wage|wages)\b|비용|요금|가격|운임|금액|예산|회비|수수료|월급|연봉|돈|价格|费用|票价|收费|预算|工资|会费|手续费|钱))",
     frozenset({"money"}), frozenset({"money"}), "money"),
    # a physical dimension asked ("how heavy", "체중은 얼마", "最低体重是多少"): a quantity in that unit class; a dimension
    # noun only with an amount asked beside it (language, not tuned)
    (r"\bhow (?:heavy|light)\b|얼마나\s?무[거겁]|" + _AMOUNT_ASKED +
     r"(?=.*(?:\bweigh(?:s|t|ts|ed)?\b|무게|체중|몸무게|중량|重量|体重|體重|多重))",
     frozenset({"quantity"}), frozenset({"weight"}), "weight"),
    (r"\bhow (?:far(?! apart)|tall|high|wide|deep)\b|얼마나\s?(?:멀|먼|높|깊)|" + _AMOUNT_ASKED +
     r"(?=.*(?:\b(?:distance|height|width|depth)\b|(?<![가-힣])거리|높이|너비|깊이|多远|距离|多高|高度|宽度|深度))",
     frozenset({"quantity"}), frozenset({"length"}), "length"),
)
_ASKS_BEFORE_COUNTS = 6  # year, month, time of day, weekday, age, percent come before "how many <unit>"; duration, money after
# asked after "how many …" ("How many parcels were delayed when the scanners failed?" asks for a number)
_WHEN = re.compile(r"\bwhen\b|언제|며칠에|무슨\s?날|什么时候|何时|哪一天|几月|几号|什么日子|\bwhat date\b")
# language: a comparison in time between named sides ("Which opened earlier, A or B?", "A와 B 중 어디가 먼저 문을
# 열었어?", "A和B哪个更早开业？") asks for each side's date, as "when" does
_EARLIER = re.compile(r"\b(?:which|who|what)\b[^?]{0,80}\b(?:earlier|later|sooner|more recently)\b|"
                      r"(?:어느|어디가|누가|무엇이|뭐가|(?:와|과|랑|하고)\s[^?]{0,30}(?:중에?|가운데))[^?]{0,40}"
                      r"(?:먼저|더\s?일찍|더\s?늦게|나중에)|"
                      r"(?:哪|谁)[^？?]{0,30}(?:更早|更晚|较早|较晚|早些|晚些|先)")
_HOW_MANY = re.compile(r"\bhow many\s+(?:more\s+)?([a-z\-]+(?:\s[a-z\-]+)?)|몇\s?([가-힣]+|[a-z%]+)|며칠|"
                       r"(?:多少|几|幾)\s?(?:个|個)?\s?([\u4e00-\u9fff]{1,2})|\bhow much\b|\bnumber of\b|\bhow often\b")
# language: a question for the end of a period, and the words that mark an end in a sentence
_UNTIL = re.compile(r"언제까지|몇\s?(?:년|월|일|시)\s?까지|\b(?:until|till) when\b|\bwhen does .{0,80}\b(?:end|expire|run out)\b|"
                    r"\bvalid (?:until|through)\b|到什么时候|到何时|到哪天|到几号|截止到?(?:什么时候|何时|哪天)")
_END_STATED = re.compile(r"까지|만료|종료|\b(?:until|till|through|expires?|expiry|ends?|ending|runs? out|valid to)\b|"
                         r"至(?!少|多|今|于|於)|到期|截止|为止|為止|届满|屆滿|结束|結束|到\s?\d", re.I)
# … and what really lay behind an event ("what went wrong", "뭐가 문제였", "怎么会": rules.CAUSE_ASKED, one list)
_CAUSE = re.compile(r"\bwhy\b|\bcause[sd]?\b|\breasons?\b|원인|이유|왜|까닭|原因|为什么|為什麼|为何|起因|缘故|" + CAUSE_ASKED)
_CAUSE_STATED = re.compile(
    r"\bbecause\b|\bdue to\b|\bcaused\b|\bcause\b|\bas a result\b|\bowing to\b|\bled to\b|\bresulted in\b|"
    r"\bsince\b|\btherefore\b|\bso that\b|\bthus\b|\bbecause of\b|"
    r"때문|(?:으)?로\s?인해|(?:으)?로\s?인한|탓|원인|바람에|결과|그래서|따라서|그 결과|"
    r"因为|因為|由于|由於|因此|所以|导致|導致|造成|引起|原因|以致|致使", re.I)


# language: words that begin with 배 and are no multiple (배송 delivery, 배달, 배차 dispatch, 배치, 배정, 배터리, 배포)
_NOT_MULTIPLE = re.compile(r"배[송달차치정터포]")
# language: loanwords that begin with 프로 (project, program, process, professional …), not the spoken percent
_LOANWORD_AFTER_PRO = re.compile(r"프로[그젝세토필듀모파]")


def _unit_class(word: str) -> str:
    word = word.strip().lower()
    if word in _UNIT_OF:
        return _UNIT_OF[word]
    for w, cls in _ALL_UNITS:  # "days before" → "days"; "명이었" → "명"
        if word.startswith(w) and (not re.fullmatch(r"[a-z]+", w) or re.match(rf"{re.escape(w)}\b", word)):
            if _LOANWORD_AFTER_PRO.match(word) or (cls == "multiple" and _NOT_MULTIPLE.match(word)):
                continue  # "몇 프로젝트", "몇 프로그램": a loanword, not 프로 (percent); "몇 배차": no multiple
            return cls
    return ""


# language: a question for a rate in time ("how often", "how many days per week", "주 몇 회", "일주일에 몇 번",
# "每周几次", "多久一次"): answered by a frequency ("주 2회", "twice a week", "每周两次")
_ASKS_FREQUENCY = re.compile(
    r"\bhow often\b|\bhow many (?:times|days|sessions)\b.*\b(?:a|per|each|every) (?:day|week|month|year)\b|"
    r"\bhow frequently\b|(?:주|일주일에?|한\s?주에|월|한\s?달에|달에|하루에?|1년에|연)\s?몇\s?(?:회|번|차례|일)|얼마나\s?자주|"
    r"(?:每周|每週|一周|一週|每星期|每月|一个月|每天|一天|每年|一年)\s?(?:几|幾|多少)\s?(?:次|回|天)|多久一次|多长时间一次")
# language: a question for a person ("who", "누구", "谁", "담당자는", "负责人是") and for a place ("where", "어디", "哪里")
_ASKS_PERSON = re.compile(r"\bwho(?:m|se)?\b|누구|누가|어떤\s?사람|담당자는|책임자는|谁|誰|哪位|什么人|负责人是")
_ASKS_PLACE = re.compile(r"\bwhere\b|\bwhich (?:floor|room|building|desk|counter|office|station|terminal)\b|어디|"
                         r"몇\s?층|哪里|哪裡|哪儿|在哪|什么地方|什麼地方|几楼|幾樓|哪个楼|哪一层")


# language: "what's the longest / smallest / maximum …" asks for a value with no "how" (English; Korean and Chinese say
# 최대 며칠 / 最多几天, which the patterns above read)
_SUPERLATIVE = re.compile(r"\bwhat(?:'s| is| are| was| were) the (longest|shortest|maximum|minimum|max|min|smallest|"
                          r"largest|highest|lowest)\b(?!-)"
                          r"(?! (?:city|town|country|place|show|series|team|company|one)\b)")
# language: "what sugar level / what score / at what temperature / what is the speed limit …" asks for a measured value
# with no "how" (English; Korean and Chinese say 몇 / 多少, read above). A measure noun, not a list fitted to a corpus
_MEASURE_NOUNS = (r"(?:level(?! of\b)|score|temperature|count|rate|speed|size|capacity|limit|threshold|dose|dosage|"
                  r"concentration|volume|pressure)s?")
_ASKS_MEASURE = re.compile(rf"\b(?:what|which)\s+(?:[a-z\-]+\s+){{0,2}}?{_MEASURE_NOUNS}\b|"
                           rf"\bwhat(?:'s| is| was| are| were) the (?:[a-z\-]+ ){{0,2}}?{_MEASURE_NOUNS}\b")
# language: a question that is a money word and its topic only ("no-show fee?", "성인 요금은?", "押金多少" is read above)
_BARE_MONEY = re.compile(r"(?:\b(?:price|prices|fee|fees|cost|costs|fare|fares|charge|charges)|요금|비용|가격|운임|"
                         r"수수료|위약금|회비|费用|价格|票价|收费|手续费|押金|定金)\s*(?:은|는|이|가)?\s*[?？]?\s*$")
# … unless a question word asks something else, or it is a yes / no question ("停车是否收费？", "free of charge?")
_ASKS_ANYTHING_ELSE = re.compile(
    r"\b(?:how|what|when|where|which|who|whom|whose|why|do|does|did|is|are|can|free of)\b|"
    r"몇|언제|어디|누구|누가|무엇|뭐|무슨|어느|어떤|어떻게|왜|무료|什么|什麼|哪|谁|誰|怎么|怎麼|为什么|吗|嗎|是否|是不是|还是|免费")


# language: currencies by their names, codes and signs in ko / en / zh (a money value's text is its number and unit)
_CURRENCIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((code, re.compile(pattern, re.I)) for code, pattern in (
    ("usd", r"\busd\b|(?<![A-Za-z])\$|\bdollars?\b|美元|美金|달러"),
    ("eur", r"\beur\b|\beuros?\b|€|欧元|歐元|유로"),
    ("jpy", r"\byen\b|\bjpy\b|日元|日圓|円|(?<![가-힣])엔(?:화)?(?![가-힣])"),
    ("krw", r"\bwon\b|\bkrw\b|韩元|韓元|₩|\d\s?(?:만|억|천)?\s?원|^원(?:화)?$"),
    ("cny", r"\byuan\b|\brmb\b|\bcny\b|人民币|人民幣|위안|(?<![美韩韓欧歐日港台])元|块|塊"),
))
# the currency a question's language names when it means any money ("몇 원이야?" of a fee in yuan)
_HOME_CURRENCY = {"ko": "krw", "zh": "cny", "en": "usd"}
# … and where a question names the currency it wants the amount in: "in dollars / in USD", "달러로", "以美元"
_IN_CURRENCY = re.compile(r"\bin (?:us |american |korean |chinese )?(?:dollars?|usd|won|krw|euros?|eur|yuan|rmb|cny|yen)\b|"
                          r"(?<![가-힣])(?:달러|유로|위안|엔|원)화?로(?:요|는|도)?(?![가-힣])|"
                          r"(?:以|用|按)(?:美元|欧元|人民币|韩元|日元)")


def currency_of(text: str) -> str:
    """The currency a money value's text (or a currency word) names ("" when none)."""
    t = _norm(text)
    return next((code for code, pattern in _CURRENCIES if pattern.search(t)), "")


def asked_type(question: str) -> AskedType:
    """The kind of value the question asks for (NO_TYPE when it asks for none of them); for money, the currency it
    names in its asking words ("多少美元", "how many dollars", "몇 달러", "in euros"): an amount in another currency does
    not answer it."""
    asked = _asked_type(question)
    if "money" not in asked.kinds:
        return asked
    q = _norm(question).lower()
    _, word = _how_many(q)
    unit = next((w for w in sorted(UNIT_WORDS["money"], key=len, reverse=True) if word.startswith(w)), "")
    named = _IN_CURRENCY.search(q)
    # "달러로요" → 달러, "엔화로" → 엔: the currency word without its particle
    currency = currency_of(unit) or (currency_of(re.sub(r"화?로[요는도]?$", "", named.group(0))) if named else "")
    if not currency or currency == _HOME_CURRENCY[dominant_language(question)]:
        return asked  # "몇 원", "多少元", "how many dollars" as often mean any money as that currency
    return AskedType(asked.kinds, asked.units, asked.label, asked.cause, asked.until, currency)


def _how_many(q: str) -> tuple[re.Match | None, str]:
    """The "how many / 몇 / 多少 …" of a normalised, lower-cased question and the word it counts ("" when none)."""
    m = _HOW_MANY.search(q)
    return m, next((g for g in m.groups() if g), "") if m else ""


def _asked_type(question: str) -> AskedType:
    q = _norm(question).lower()
    cause = bool(_CAUSE.search(q))
    if _ASKS_FREQUENCY.search(q):  # before the weekday pattern: "每周几次" is not "周几"
        return AskedType(frozenset({"frequency"}), frozenset(), "frequency", cause)
    for pattern, kinds, units, label in _ASKS[:_ASKS_BEFORE_COUNTS]:
        if re.search(pattern, q):
            return AskedType(kinds, units, label, cause)
    m, word = _how_many(q)
    cls = "day" if m and m.group(0) == "며칠" else _unit_class(word) if word else ""
    if cls == "money":
        return AskedType(frozenset({"money"}), frozenset({"money"}), "money", cause)
    if cls:  # "how many customers paid …" counts people, whatever the rest of the question says
        return AskedType(frozenset({"quantity"}), frozenset({cls}), f"quantity ({cls})", cause)
    for pattern, kinds, units, label in _ASKS[_ASKS_BEFORE_COUNTS:]:
        if re.search(pattern, q):
            return AskedType(kinds, units, label, cause)
    if m:
        return AskedType(frozenset({"quantity", "money", "percent"}), frozenset(), "quantity", cause)
    if _UNTIL.search(q):
        return AskedType(_TEMPORAL, frozenset(), "end date or time", cause, until=True)
    if _WHEN.search(q) or _EARLIER.search(q):
        return AskedType(_TEMPORAL, frozenset(), "date or time", cause)
    if re.search(r"多少|几|幾|얼마", q):
        return AskedType(frozenset({"quantity", "money", "percent"}), frozenset(), "quantity", cause)
    if _BARE_MONEY.search(q) and not _ASKS_ANYTHING_ELSE.search(q):
        # "delivery slot no-show fee?", "성인 요금은?", "押金？": a money word is all the question asks about
        return AskedType(frozenset({"money"}), frozenset({"money"}), "money", cause)
    if _ASKS_PLACE.search(q):
        return AskedType(frozenset({"place"}), frozenset(), "place", cause)
    if _ASKS_PERSON.search(_norm(question)) or _ASKS_PERSON.search(q):
        return AskedType(frozenset({"person"}), frozenset(), "person", cause)
    if _ASKS_MEASURE.search(q):
        return AskedType(frozenset({"quantity", "money", "percent"}), frozenset(), "quantity", cause)
    m = _SUPERLATIVE.search(q)
    if m:  # "what's the longest I can stay", "what is the minimum order": a value, as "how long / how much" would ask
        if m.group(1) in ("longest", "shortest"):
            return AskedType(frozenset({"quantity"}), DURATION_UNITS, "duration", cause)
        return AskedType(frozenset({"quantity", "money", "percent"}), frozenset(), "quantity", cause)
    if cause:
        return AskedType(frozenset(), frozenset(), "cause", True)
    return NO_TYPE


def states_cause(sentence: str) -> bool:
    return bool(_CAUSE_STATED.search(_norm(sentence)))


def fit(asked: AskedType, sentence: str, values: list[Value] | None = None) -> int:
    """STRONG / WEAK / OTHER / NONE: how well the sentence's values answer the asked type (see the module)."""
    if not asked.kinds:
        return STRONG if asked.cause and states_cause(sentence) else NONE
    values = stated_values(sentence) if values is None else values
    if not values:
        return NONE
    if asked.until and not _END_STATED.search(_norm(sentence)):
        # a date that is not the end of anything ("signed on 12 September 2024") for "until when"
        return WEAK if any(v.kind in asked.kinds for v in values) else OTHER
    best = OTHER
    for v in values:
        if v.kind not in asked.kinds:
            continue
        if v.kind == "money" and asked.currency and currency_of(v.text) not in ("", asked.currency):
            continue  # "210 won per kg" does not say how many dollars
        if v.kind != "quantity" or not asked.units:
            strong = v.kind != "quantity" or bool(v.unit)
            if not strong and asked.kinds & {"money", "percent"} and not asked.units:
                strong = False
            best = max(best, STRONG if strong else WEAK)
        elif v.unit in asked.units or ("item" in asked.units and v.unit in COUNTED):
            return STRONG  # "몇 개" / "how many items" is answered by a count of anything
        elif not v.unit or (v.unit == "item" and asked.units & COUNTED):
            best = max(best, WEAK)  # a bare number, or "개 / 个" for a count of books
    return best


__all__ = ["AskedType", "NO_TYPE", "STRONG", "WEAK", "OTHER", "NONE", "Value", "asked_type", "currency_of", "fit",
           "stated_values", "states_cause"]


# ---- grading's check (additive: the same lists, read as "does this sentence state what is asked") -------------------
# "which company / 어느 회사 / 哪家公司" asks for a company's name (language, not tuned); asked_type leaves it out (no
# value), so selection is unchanged by it
_ASKS_ORGANISATION = re.compile(
    r"\b(?:which|what) (?:company|firm|vendor|supplier|manufacturer|contractor|maker)\b|"
    r"(?:어느|어떤|무슨)\s*(?:회사|업체|기업|제조사|제조업체|공급사|공급업체|협력사|메이커)|"
    r"哪(?:一)?(?:家|个)?(?:公司|企业|厂商|厂家|供应商|制造商)")
ORGANISATION = AskedType(frozenset({"organisation"}), frozenset(), "organisation")
# a legal-form or trade word after a name, in any of the three languages (language, not tuned)
_ORG_MARKERS = re.compile(
    r"\(주\)|㈜|주식회사|[가-힣]{2,}(?:전자|전기|미디어|시스템즈|시스템|테크|산업|건설|제약|통신|물산|상사|솔루션|엔지니어링|"
    r"디자인|코리아|컴퍼니|정보통신|기계|중공업|화학)(?=[\s,.이가은는을를의와과에도]|$)|[\u4e00-\u9fff]{2,}(?:公司|集团|企业|厂|科技|电子|"
    r"株式会社)|\b(?:inc|ltd|llc|corp|co|gmbh|plc|limited|corporation|company)\b\.?", re.I)
# a capitalised name followed by one of these is a unit inside an organisation ("the Customer Team")
_ORG_UNIT_WORDS = frozenset("team teams department office division desk unit committee section group".split())
_CAPITALISED = re.compile(r"(?<![A-Za-z0-9])([A-Z][a-z]+|[A-Z][a-z]*[A-Z][A-Za-z]*)(?![A-Za-z0-9])(?=(?:\s+([A-Za-z]+))?)")
# capitalised words that name no one (language): articles and pronouns after a semicolon, months, weekdays
_NOT_NAMES = frozenset("the a an it its this that these those they we he she our their on in at for from by "
                       "january february march april may june july august september october november december "
                       "monday tuesday wednesday thursday friday saturday sunday".split())
# an amount written with a large-number word ("4,800만", "3.4 亿", "2천") or with thousands separators and no unit
# ("12,000"): money when money is asked, the currency being in a heading or left out (language, not tuned)
_MAGNITUDE = re.compile(rf"{_NUM}\s?(?:만|억|천|万|亿|千)|{_ZH_NUM}(?:元|万|亿)")
_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+$")
# a number that is part of a name ("한결5호", "青石3号", "5호선"): no value when an amount is asked (language, not tuned)
_NAME_NUMBER = re.compile(r"\d+\s*(?:호|号|番)(?![가-힣])")


# "what was the hourly minimum wage …", "…의 요금은 무엇", "…的费用是什么": a "what is the" question about a word of money
# asks for an amount, as "how much" would (language, not tuned)
_WHAT_IS_THE = re.compile(r"\bwhat(?: is|'s| are| was| were) the\b|(?:은|는|이|가)\s*(?:무엇|뭐)|是什么|为何")


_NAMED_KINDS = frozenset({"person", "place"})


def asked_for_grading(question: str) -> AskedType:
    """What grading checks a document's best sentences for: ``asked_type``; ORGANISATION for "which company"; money
    for "what is the <price / fee / wage …>" (read as "how much", the money words of ``asked_type``)."""
    q = _norm(question).lower()
    if _ASKS_ORGANISATION.search(q):
        return ORGANISATION
    asked = asked_type(question)
    if asked.kinds and asked.kinds <= _NAMED_KINDS:
        # who / where: their patterns (a title, a floor, a desk) miss plain names, so a sentence that names the person
        # or place without them is no evidence against a document; grading does not check them (selection ranks by them)
        return AskedType(frozenset(), frozenset(), "", asked.cause)
    if not asked.kinds and _WHAT_IS_THE.search(q):
        money = asked_type(f"{question} how much")
        if money.label == "money":
            return AskedType(money.kinds, money.units, money.label, asked.cause, currency=money.currency)
    return asked


def names_organisation(sentence: str, known: frozenset[str] = frozenset(), marked: bool = False) -> bool:
    """Does the sentence name a company? A legal-form or trade word ("(주)", "…전자", "…公司", "Ltd"), or (unless
    ``marked``: a legal-form or trade word only) a capitalised name that is not the sentence's first word, not a name
    the question itself uses (``known``, lower case) and not a unit of an organisation ("the Customer Team")."""
    if _ORG_MARKERS.search(sentence):
        return True
    if marked:
        return False  # a capitalised name may be a person's ("朴恩瑞（Eunseo Park）")
    stripped = sentence.lstrip(" -*•([\"'")
    for m in _CAPITALISED.finditer(stripped):
        if m.start() == 0:
            continue
        word, after = m.group(1), (m.group(2) or "").lower()
        low = word.lower()
        if low in known or low in _NOT_NAMES or low in _ORG_UNIT_WORDS or after in _ORG_UNIT_WORDS:
            continue
        return True
    return False


def answers(asked: AskedType, sentence: str, known: frozenset[str] = frozenset()) -> bool:
    """Does the sentence state a value of the asked kind (grading)? ``fit`` at least WEAK — a value of the asked kind,
    in the asked unit or a bare number where a count is asked — with readings of grading's own: a quantity in any
    unit answers a quantity question (a unit that differs across languages, "주 2회" for "how many days a week", is
    left to selection); a year question needs a year (a day of a month is no year); a money question is also answered
    by an amount with a large-number word or thousands separators ("4,800만", "12,000"); "which company" by a
    company's name (``names_organisation``)."""
    if asked is ORGANISATION or asked.kinds == ORGANISATION.kinds:
        return names_organisation(sentence, known)
    if not asked.kinds & _TEMPORAL:
        sentence = _NAME_NUMBER.sub(" ", _norm(sentence))
    values = stated_values(sentence)
    if asked.label == "year":
        return any(v.kind == "year" for v in values)
    if fit(asked, sentence, values) >= WEAK:
        return True
    if "quantity" in asked.kinds and any(v.kind == "quantity" and not re.search(rf"(?:월|月)\s?{re.escape(v.text)}", sentence)
                                         for v in values):
        return True  # a count in another unit than asked ("주 2회" for "how many days per week"): unit is selection's
    if "frequency" in asked.kinds and any(v.kind in ("quantity", "duration") for v in values):
        return True  # an interval answers "how often" ("90일마다", "every 3 months", "每三个月"): its wording is selection's
    if "money" in asked.kinds:
        s = _norm(sentence)
        if asked.currency and currency_of(s) not in ("", asked.currency):
            return False  # "연회비는 4,800만 원" does not say how many dollars
        # "4,800만 원", "3.4 亿" but not "38만 권" (a count of books): the word after the amount is no other unit
        magnitude = any(_unit_class(s[m.end():].lstrip()[:12]) in ("", "money") for m in _MAGNITUDE.finditer(s))
        return magnitude or any(v.kind == "quantity" and not v.unit and _THOUSANDS.match(v.text)
                                                 for v in values)
    return False


__all__ += ["ORGANISATION", "answers", "asked_for_grading", "names_organisation"]
