"""Which values a sentence states (ko / en / zh, general patterns): years, dates, weekdays, times of day, amounts of
money, percentages, frequencies, quantities with their unit ("430 名", "90 minutes", "7일", "2.5m"), people by title and
places. ``stated_values(sentence)`` lists them; ``answertype`` compares them with what a question asks.

Every word list here is a plain fact of the language (units, counters, titles), not fitted to a corpus.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from rag.engines.offline.wordforms import _korean_tokens
from rag.textutil import STOP_WORDS_EN

# ---- units: class → words (language) ---------------------------------------------------------------------------------
# Korean / Chinese counters follow the number directly; English unit words follow it after a space (or a hyphen when
# they qualify a noun: "a four-hour course").
UNIT_WORDS: dict[str, tuple[str, ...]] = {
    "day": ("일", "日", "天", "영업일", "工作日", "个工作日", "個工作日", "days", "day", "working days", "business days",
            "calendar days"),
    "week": ("주", "주일", "주간", "周", "星期", "weeks", "week"),
    "month": ("개월", "달", "个月", "個月", "months", "month"),
    "yearspan": ("년", "년간", "年", "years", "year"),
    # nights of a stay ("14 nights", "2박", "3 晚"); 박 / 晚 only after digits and not inside a word (3박스 are boxes)
    "night": ("박", "晚", "nights", "night"),
    "hour": ("시간", "小时", "個小時", "个小时", "钟头", "hours", "hour", "hrs", "hr", "h"),
    "minute": ("분", "分钟", "分鐘", "minutes", "minute", "mins", "min"),
    "second": ("초", "秒", "seconds", "second", "secs", "sec"),
    "person": ("명", "인", "사람", "人", "名", "位", "people", "persons", "person", "passengers", "visitors", "members",
               "employees", "staff", "students", "participants", "applicants", "guests", "customers", "users",
               "workers", "readers", "children", "adults", "volunteers"),
    "age": ("살", "세", "岁", "歲", "周岁", "週歲", "years old", "year-old"),  # 周岁: full years of age
    "money": ("원", "만원", "만 원", "억원", "억 원", "천원", "천 원", "천만 원", "천만원", "백만 원", "백만원", "won", "krw",
              "usd", "eur", "dollars", "dollar", "euros", "euro", "yuan", "rmb", "cny", "元", "块", "塊", "美元", "欧元",
              "韩元", "万元", "亿元", "万韩元", "亿韩元", "万美元", "million won", "billion won", "million yuan",
              "million dollars", "million euros", "달러", "유로", "위안", "美金", "日元", "円", "엔화"),
    "percent": ("%", "퍼센트", "프로", "percent", "per cent"),
    "liquid": ("mL", "ml", "리터", "밀리리터", "升", "毫升", "公升", "litres", "liters", "litre", "liter"),
    # a temperature; 도 / 度 only after digits (a Chinese numeral before 度 is "once": 一度), not 도시 / 度电 (kWh)
    "temperature": ("°C", "℃", "°F", "℉", "도", "度", "degrees celsius", "degrees fahrenheit", "degrees"),
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
    # doses, animals, cups and containers, teams (not 병 / 통 / 팀 in Korean: 병원, 병동, 통화, 통역, "1팀" names a team)
    "dose": ("도스", "회분", "剂", "劑", "doses", "shots"),
    "animal": ("마리", "只", "隻", "头", "頭", "animals", "dogs", "cats", "pets"),
    "cup": ("잔", "杯", "glasses", "cups"),
    "container": ("캔", "상자", "박스", "瓶", "箱", "罐", "桶", "bottles", "boxes", "cans", "kegs", "crates"),
    "team": ("组", "組", "队", "隊", "teams", "groups"),
}
COUNTED = frozenset({"volume", "machine", "case", "vessel", "site", "item", "dose", "animal", "cup", "container", "team"})
DURATION_UNITS = frozenset({"day", "night", "week", "month", "yearspan", "hour", "minute", "second"})
_CURRENCY_SIGN = "$€£¥₩"

_NUM = r"\d+(?:[.,]\d+)*"
_ZH_NUM = r"[一二三四五六七八九十两百千万半]+"
# Korean native numerals, tens with their units first ("열두 시간" is 12 hours, not 두 시간)
# (쉰 alone is also "rested" / "hoarse": only in its tens, 쉰두)
_KO_NUM = (r"(?:(?:열|스물|서른|마흔|쉰)(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉)|한|두|세|네|다섯|여섯|일곱|여덟|아홉|열|"
           r"스무|서른|마흔)")
_EN_NUM = (r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)-(?:one|two|three|four|five|six|seven|eight|"
           r"nine)|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
           r"sixty|seventy|eighty|ninety|hundred)")
# Korean words that are a count of days by themselves (language; not 하루, which mostly means "per day": 하루 근무 시간)
KO_DAY_COUNTS = {"이틀": 2, "사흘": 3, "나흘": 4, "닷새": 5, "엿새": 6, "이레": 7, "열흘": 10, "보름": 15}
_KO_DAYS = re.compile(r"(?<![가-힣])(?:" + "|".join(KO_DAY_COUNTS) + ")")


def _unit_alternation(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_ALL_UNITS = sorted({(w, cls) for cls, ws in UNIT_WORDS.items() for w in ws}, key=lambda x: -len(x[0]))
_UNIT_OF = {}
for _w, _cls in _ALL_UNITS:
    _UNIT_OF.setdefault(_w, _cls)
_LATIN_UNIT = re.compile(r"[a-z% -]+")
# a number (digits, Chinese or Korean numerals) and the unit word after it; English joins them with a hyphen when they
# qualify a noun ("a four-hour course", "a 30-day notice")
_QUANTITY = re.compile(
    rf"(?<![A-Za-z0-9.\-])(?P<n>{_NUM}|{_ZH_NUM}|{_KO_NUM}|\b{_EN_NUM})(?:-(?=[A-Za-z]{{2}}))?\s?(?:여|余|多|여\s)?\s?"
    rf"(?P<u>{_unit_alternation(tuple(w for w, _ in _ALL_UNITS))})"
    r"(?P<after>[A-Za-z]?)", re.I)
# one unit with an article after a word of time taken ("takes an hour", "within a week", "at least a month", "half an
# hour"); not "once a week" / "twice a day", which are frequencies
_ONE_UNIT = re.compile(r"\b(?:within|takes?|took|taking|lasts?|lasted|lasting|for|after|about|around|least|most|up to|than|"
                       r"only|just|over|under)\s+(?:about\s+|around\s+|roughly\s+|nearly\s+|almost\s+)?"
                       r"(?P<v>(?:half\s+)?an?\s+(?:full\s+)?(?P<u>hour|day|week|month|year|minute|night|fortnight))\b"
                       # "for a year-end party", "for a day pass", "for a night shift" name a thing, not a time taken
                       r"(?!-|\s+(?:pass|trip|shift|ticket|care|off|job|rate|fee|price)s?\b)", re.I)
_ONE_UNIT_CLASS = {"year": "yearspan", "fortnight": "week"}
_MONEY_BEFORE = re.compile(rf"[{_CURRENCY_SIGN}]\s?{_NUM}|\b(?:krw|usd|eur|rmb|cny)\s?{_NUM}", re.I)

_MONTHS_EN = ("january|february|march|april|may|june|july|august|september|october|november|december|"
              "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_YEAR = re.compile(r"(?<![\d.,:])(?:1[6-9]|20|21)\d\d(?!\d|[.,]\d)(?:\s?년|年)?")
_DATE = re.compile(
    # a full date with dots or slashes, year first ("2024.03.15", "2024. 3. 15.", "2024/3/15"), as Korean and Chinese
    # documents write it
    # (spaced, it ends with its dot: "in 2019. 2. 5 staff joined" is two sentences)
    rf"(?<![\d.])(?:19|20)\d\d(?:\.\d{{1,2}}\.\d{{1,2}}(?!\d)\.?|\.\s\d{{1,2}}\.\s\d{{1,2}}\.)|(?<![\d/])(?:19|20)\d\d/\d{{1,2}}/\d{{1,2}}(?!\d)|"
    rf"\d{{1,2}}\s?월\s?\d{{1,2}}\s?일|\d{{1,2}}\s?月\s?\d{{1,2}}\s?[日号號]|\d{{4}}-\d{{1,2}}-\d{{1,2}}|"
    rf"\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS_EN})\b|\b(?:{_MONTHS_EN})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b|"
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
_PERCENT = re.compile(rf"{_NUM}\s?(?:%|퍼센트|percent|per cent)|百分之\s?(?:{_NUM}|{_ZH_NUM}|)", re.I)


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


# language: words that begin with 배 and are no multiple (배송 delivery, 배달, 배차 dispatch, 배치, 배정, 배터리, 배포)
_NOT_MULTIPLE = re.compile(r"배[송달차치정터포]")
# after 박 / 晚 of nights: the end of the word or a particle ("1박당", "2박으로"), not 박스 (a box), 晚上 / 晚饭 / 晚班
_NOT_NIGHT = re.compile(r"[가-힣](?<![에을은이간씩도만째까당과와의으부])|上|饭|餐|班|会")
# after 도 / 度 of a temperature: the end of the word, a particle or a following word ("60도 이상", "4도로", "몇 도였어"),
# not another syllable of a word (도시, 도스 "doses", 도서 …, 도로가 "roads"), nor 度电 (kWh), 度角 (an angle)
_NOT_DEGREE = re.compile(r"로[가는를이에]|(?!정도|까지|에서|이상|이하|보다|부터)(?:[가-힣](?<![에로를는가야예였이인쯤나씩라고의와과다])|电|角)")
# language: loanwords that begin with 프로 (project, program, process, professional …), not the spoken percent
_LOANWORD_AFTER_PRO = re.compile(r"프로[그젝세토필듀모파]")


def _unit_class(word: str) -> str:
    word = word.strip().lower()
    if word in _UNIT_OF:
        return _UNIT_OF[word]
    for w, cls in _ALL_UNITS:  # "days before" → "days"; "명이었" → "명"
        if word.startswith(w) and (not re.fullmatch(r"[a-z]+", w) or re.match(rf"{re.escape(w)}\b", word)):
            if _LOANWORD_AFTER_PRO.match(word) or (cls == "multiple" and _NOT_MULTIPLE.match(word)) or (
                    cls == "temperature" and w in ("도", "度") and _NOT_DEGREE.match(word[1:])) or (
                    cls == "night" and w in ("박", "晚") and _NOT_NIGHT.match(word[1:])):
                continue  # "몇 프로젝트", "몇 프로그램": a loanword, not 프로 (percent); "몇 배차": no multiple
            return cls
    return ""


@dataclass(frozen=True)
class Value:
    kind: str  # year | date | weekday | time | money | percent | quantity | frequency | person | place
    unit: str = ""  # quantity: a UNIT_WORDS class ("" when the number has no unit word)
    text: str = ""


def counted_word(word: str) -> str:
    """The word a "how many" counts, as a sentence writes it after the number ("니트를" → "니트", "nits should" →
    "nits"); "" for an English function word ("how many are …") or a lone letter."""
    w = word.split()[0] if word.strip() else ""
    if re.match(r"[가-힣]", w):  # without its particle or copula ("니트를", "럭스예요"): kiwipiepy's first noun
        tokens = _korean_tokens(w)
        w = tokens[0].form if tokens and tokens[0].tag.startswith(("NN", "XR")) else ""
    return "" if not w or w in STOP_WORDS_EN or (w.isascii() and len(w) < 2) else w


def states_count_of(word: str, sentence: str) -> bool:
    """Does the sentence state a number of ``word`` ("48니트", "48 nits", "五场", "3 个订单")?"""
    return bool(word) and re.search(rf"(?:\d|{_ZH_NUM})\s?(?:개|个|個)?\s?{re.escape(word)}",
                                    _norm(sentence).lower()) is not None


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


# language: a weekday in brackets after a day ("15일(월)"); a noun after "N번" ("3번 저온실의": No. 3), not a verb
# ("61번 헌혈했다") nor a word of degree ("3번 이상")
_WEEKDAY_AFTER = re.compile(r"\s?[(（](?:[월화수목금토일]|周[一二三四五六日天]|星期[一二三四五六日天]|[一二三四五六日])[)）]")
_KO_ORDINAL_AFTER = re.compile(r"\s(?!이상|이하|이내|정도|까지|만에|째|더|씩|다시|연속|넘게|미만|초과|가량|안에)[가-힣]+"
                               r"(?<![다요고며면서니지게는은을씩죠까야])(?![가-힣])")


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
        if re.fullmatch(_KO_NUM, m.group("n")) and not s[m.end("n"):m.start("u")]:
            continue  # Korean writes a native numeral apart from its counter ("세 척"): "세척" is washing
        if m.group("after") or (_LATIN_UNIT.fullmatch(word.lower()) and re.match(r"[a-z]", s[m.end():m.end() + 1] or " ")):
            continue  # "3 member states" is fine, "BM25x" / "2 meters" handled by the longest unit word
        cls = _UNIT_OF.get(word, _UNIT_OF.get(word.lower(), ""))
        if cls == "multiple" and _NOT_MULTIPLE.match(s[m.start("u"):]):
            continue  # "3배송", "2배터리": a word that begins with 배, not a multiple
        if cls == "temperature" and word in ("도", "度") and (not m.group("n")[0].isdigit() or _NOT_DEGREE.match(s[m.end():])):
            continue  # "一度" (once), "3도시", "100度电" (kWh): no temperature
        if cls == "night" and word in ("박", "晚") and (not m.group("n")[0].isdigit() or _NOT_NIGHT.match(s[m.end():])):
            continue  # "3박스" (boxes), "晚上" (evening): no nights
        if cls == "yearspan" and re.fullmatch(r"(?:1[6-9]|20|21)\d\d", m.group("n")):
            continue  # "2021년" is a year (found above), not a span of years
        if cls == "day" and word in ("日", "일") and re.search(r"(?:月|월)\s?$", s[:m.start()]):
            continue  # the day of a month ("1월 1일", "3月5日"), not a number of days
        if cls == "day" and word in ("日", "일") and _WEEKDAY_AFTER.match(s[m.end():]):
            add("date", m)  # "15일(월)", "5日（周一）": a day of the month with its weekday
            continue
        if word == "분" and re.match(r"기|위|할|야|의\s?(?:\d|[일이삼사오육칠팔구])", s[m.end():]):
            continue  # "3분기" (a quarter), "3분의 1" (a third), "1분위", "3분할", "2분야": no minutes
        if cls == "liquid" and (word == "ML" or (word == "升" and re.match(r"[至到级級为為高值入职職学學降]", s[m.end():]))):
            continue  # "5 ML models" (machine learning), "从第5升至第2" (rose to): no litres
        if word == "번" and m.group("n").isdigit() and _KO_ORDINAL_AFTER.match(s[m.end():]):
            spans.append(m.span())  # "3번 저온실", "2번 게이트로": the room or gate No. 3, no count of times
            continue
        out.append(Value("money" if cls == "money" else "percent" if cls == "percent" else "quantity", cls,
                         m.group(0).strip()))
        spans.append(m.span())
    for m in _ONE_UNIT.finditer(s):  # "It takes an hour", "within a week"
        if not any(a <= m.start("v") < b for a, b in spans):
            unit = m.group("u").lower()
            out.append(Value("quantity", _ONE_UNIT_CLASS.get(unit, unit), m.group("v")))
            spans.append(m.span("v"))
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
