"""What kind of value a question asks for, and how well a sentence's values fit it (ko / en / zh, general patterns).

``asked_type("ParcelHub 系统是哪一年上线的？")`` → a year; ``asked_type("How many days before the workshop …")`` → a
quantity in days; ``asked_type("수작업 검표로 바뀐 승객은 몇 명")`` → a quantity of people. ``stated_values(sentence)``
(``values.py``, re-exported here) finds years, dates, weekdays, times of day, amounts of money, percentages and
quantities with their unit ("430 名", "90 minutes", "7일", "2.5m"). ``fit(asked, sentence)`` says how well a sentence
answers the asked type:

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
from dataclasses import dataclass, field

from rag.engines.offline.rules import CAUSE_ASKED
from rag.engines.offline.values import (_NUM, _ZH_NUM, COUNTED, DURATION_UNITS, UNIT_WORDS, Value, _norm, _unit_class,
                                        counted_word, stated_values)
from rag.textutil import dominant_language

STRONG, WEAK, OTHER, NONE = 3, 2, 1, 0


# ---- what the question asks ------------------------------------------------------------------------------------------
_NAMED_KINDS = frozenset({"person", "place"})  # kinds a name answers


@dataclass(frozen=True)
class AskedType:
    kinds: frozenset[str]  # value kinds that answer it
    units: frozenset[str] = field(default_factory=frozenset)  # quantity: the unit classes asked ("" in it: any)
    label: str = ""  # for the trace: "year", "quantity (day)", "cause" …
    cause: bool = False
    until: bool = False  # asks for the end of a period ("언제까지", "until when"): a date with an end marker answers it
    currency: str = ""  # money: the currency the question names ("多少美元", "몇 달러", "in euros"), "" when none
    counted: str = ""  # the word a "how many" counts that no unit class knows ("몇 니트", "多少分贝": values.counted_word)

    def __bool__(self) -> bool:
        return bool(self.kinds) or self.cause

    @property
    def value(self) -> bool:
        """Asks for a value (a number, a date, an amount …), not a person or a place, whose patterns (a title, a
        floor, a desk) miss plain names: only a value is checked for in the sentences."""
        return bool(self.kinds) and not self.kinds & _NAMED_KINDS


NO_TYPE = AskedType(frozenset())
AMOUNT = "amount"  # the label of a bare Korean "얼마" (not "얼마나"): an amount, not a count
_COUNTS = COUNTED | {"person", "times"}

_TEMPORAL = frozenset({"date", "year", "weekday", "time"})
# unit classes that answer a question only when it names them ("몇 도", "how many nights"), not a bare amount asked
_ASKED_BY_NAME_ONLY = frozenset({"temperature", "night"})
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
    (r"\b(?:what|which) days? of the week\b|\bwhich days?\b|무슨\s?요일|어느\s?요일|몇\s?요일|星期几|周几|礼拜几|哪几天|"
     r"(?:周|星期|礼拜)的?哪一?天",
     frozenset({"weekday", "date"}), frozenset(), "weekday"),
    # "哪天" without a week before it asks for a day: a date ("哪天上线的", "是从哪天开始算的"), not the time of day that
    # "when" also allows; "到哪天" asks for an end (_UNTIL)
    (r"(?<!到)哪一?天", frozenset({"date", "weekday"}), frozenset(), "date"),
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
    # a temperature asked ("how hot", "몇 도", "多少度", "what's the highest water temperature", "온도는 얼마"); a
    # temperature noun only where the amount is asked of it ("How much citrus was in the room whose temperature
    # climbed?" asks for citrus)
    (r"\bhow (?:hot|cold|warm|cool)\b|\b(?:what|which) temperature\b|몇\s?도(?!로[가는를이에]|(?!정도|까지|에서|이상|이하)[가-힣](?<![에로를는가야예였이인쯤나씩라고]))|"
     r"얼마나\s?(?:뜨거|뜨겁|차가|차갑|따뜻|따듯)|多少度(?!电)|几度(?!电)|多热|多冷|"
     r"\bwhat(?:'s| is| was| are| were) the (?:[a-z\-]+ ){0,2}?temperatures?\b|"
     r"(?:온도|수온|기온|체온)(?:은|는|가|를)?\s?(?:얼마|몇)|(?:温度|水温|气温|体温)(?:是|为|要|应)?(?:多少|几)",
     frozenset({"quantity"}), frozenset({"temperature"}), "temperature"),
)
_ASKS_BEFORE_COUNTS = 7  # year, month, time of day, weekday, day, age, percent come before "how many <unit>"; duration, money after
# asked after "how many …" ("How many parcels were delayed when the scanners failed?" asks for a number)
_WHEN = re.compile(r"\bwhen\b|언제|며칠에|무슨\s?날|什么时候|何时|哪一天|几月|几号|什么日子|\bwhat date\b")
# English "when" after another question word of its sentence, not followed by a verb that asks ("What value of k
# does Atlas use when it merges …", "What happened when …"), opens a clause of time: it asks no date (language)
_ASKING_BEFORE = re.compile(r"\b(?:what|which|who|whom|whose|how|where|why)\b")
_ASKING_AFTER = re.compile(r"\s*(?:did|does|do|is|was|are|were|will|would|can|could|should|must|has|have|had)\b")


def _subordinate_when(q: str, m: re.Match) -> bool:
    if m.group(0) != "when":
        return False
    sentence = re.split(r"[.?!;？。]", q[: m.start()])[-1]
    return bool(_ASKING_BEFORE.search(sentence)) and not _ASKING_AFTER.match(q, m.end())


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
    question = _QUOTED.sub("“”", question)  # read once, for the kind and for the currency
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


# language, not tuned: a phrase the question quotes is a mention, not its asking words ("“最后几杯”的提示 … 剩多少"
# asks an amount, not cups); paired quotation marks of any script (ASCII single quotes are apostrophes too)
_QUOTED = re.compile(r"“[^”\n]{1,40}”|‘[^’\n]{1,40}’|「[^」\n]{1,40}」|『[^』\n]{1,40}』|\"[^\"\n]{1,40}\"")


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
        return AskedType(frozenset({"quantity", "money", "percent"}), frozenset(), "quantity", cause,
                         counted=counted_word(word))
    if _UNTIL.search(q):
        return AskedType(_TEMPORAL, frozenset(), "end date or time", cause, until=True)
    if any(not _subordinate_when(q, m) for m in _WHEN.finditer(q)) or _EARLIER.search(q):
        return AskedType(_TEMPORAL, frozenset(), "date or time", cause)
    if re.search(r"얼마(?!\s?나)", q) and not re.search(r"多少|几|幾", q):
        # "표가 얼마예요?" asks an amount (a price, a rate, a measure), not a count of things or people (language)
        return AskedType(frozenset({"quantity", "money", "percent"}), frozenset(), AMOUNT, cause)
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
        if asked.label == AMOUNT and v.kind == "quantity" and v.unit in _COUNTS:
            best = max(best, WEAK)  # "5편까지" does not say what a ticket costs
        elif v.kind != "quantity" or not asked.units:
            # a temperature or a number of nights answers only a question that asks for one (units), not a bare
            # "how much / 얼마" ("편도 얼마예요?" is not answered by "up to six nights a year")
            strong = v.kind != "quantity" or (bool(v.unit) and v.unit not in _ASKED_BY_NAME_ONLY)
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
