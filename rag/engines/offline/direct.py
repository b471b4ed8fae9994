"""direct answers without retrieval: aggregates, arithmetic, unit conversions, glossary translation, Python recipes."""
from __future__ import annotations

import math
import re

from rag.engines.offline.arithmetic import FORMULAS, extract_expression, list_aggregate, safe_eval, unit_conversion
from rag.engines.offline.rules import ARITHMETIC_PATTERNS, ASKING, TRANSLATION_MARKERS
from rag.engines.offline.text import _contains_phrase, _norm, greeting_in
from rag.engines.offline.vocabulary import CODE_RECIPES, GLOSSARY
from rag.types import Answer


class DirectAnswerer:
    """direct answers without retrieval: aggregates, arithmetic, glossary translation, Python recipes.

    Part of ``OfflineEngine``."""

    def _generate_direct(self, question: str, lang: str) -> Answer:
        q = _norm(question)
        if greeting_in(question) and not ASKING.search(question):
            template = self._template("direct", "small talk: a greeting or thanks with no question in it", question)
            text = self._say(lang, "안녕하세요! 문서에 대해 궁금한 점을 물어보시면 근거와 함께 답해 드릴게요.",
                             "Hello! Ask me anything about the documents and I will answer with the sources.",
                             "您好！请提出关于文档的问题，我会附上出处回答。")
            return Answer(text, [], False, "direct: small talk, answered with a greeting (no question asked)",
                          prompt=template)
        conversion = unit_conversion(question)
        if conversion:
            value, source, target, converted, formula = conversion
            template = self._template("direct", "unit conversion (temperature, length, weight), computed in Python: "
                                      + "; ".join(FORMULAS.values()), question)
            shown = f"{converted:.4g}" if abs(converted) < 1000 else f"{converted:,.1f}"
            text = self._say(lang, f"{value:g} {source}는 {shown} {target}입니다. ({formula})",
                             f"{value:g} {source} is {shown} {target}. ({formula})",
                             f"{value:g} {source} 等于 {shown} {target}。（{formula}）")
            return Answer(text, [], False, f"direct: unit conversion {value:g} {source} → {shown} {target} computed",
                          prompt=template)
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
