"""Arithmetic for direct answers: number-list aggregates and a safe expression evaluator."""
from __future__ import annotations

import ast
import math
import operator
import re
import unicodedata
from typing import NamedTuple

from rag.engines.offline.rules import AGGREGATES, NUMBER_LIST
from rag.engines.offline.text import _THOUSANDS

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
    (r"더하기|plus|加上|加", "+"), (r"빼기|minus|减去|减", "-"), (r"곱하기|multiplied by|times|乘以|乘", "*"),
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


# ---- unit conversion (general knowledge, computed): "섭씨 60도는 화씨로 몇 도야?", "10 km in miles", "30摄氏度是多少华氏度" ----
# unit → (dimension, words that name it; language facts, not tuned); a factor to the dimension's base unit, or a
# function pair for temperature
_UNIT_WORDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "°C": ("temperature", ("섭씨", "celsius", "°c", "℃", "摄氏", "攝氏")),
    "°F": ("temperature", ("화씨", "fahrenheit", "°f", "℉", "华氏", "華氏")),
    "km": ("length", ("km", "킬로미터", "kilometers", "kilometres", "kilometer", "kilometre", "公里", "千米")),
    "mi": ("length", ("miles", "mile", "마일", "英里")),
    "kg": ("weight", ("kg", "킬로그램", "kilograms", "kilogram", "公斤", "千克")),
    "lb": ("weight", ("pounds", "pound", "lbs", "lb", "파운드", "磅")),
}
_TO_BASE = {"km": 1.0, "mi": 1.609344, "kg": 1.0, "lb": 0.45359237}
# the formula an answer shows, by the unit converted from (temperature) or the dimension (length, weight)
FORMULAS = {"°C": "°F = °C × 9/5 + 32", "°F": "°C = (°F − 32) × 5/9", "length": "1 mile = 1.609344 km",
            "weight": "1 lb = 0.45359237 kg"}
_CONV_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")


class Conversion(NamedTuple):
    value: float
    source: str  # the unit the question's number is in
    target: str
    result: float
    formula: str


def _unit_mentions(text: str) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for unit, (_, words) in _UNIT_WORDS.items():
        for word in words:
            pattern = (rf"(?<![a-z]){re.escape(word)}(?![a-z])" if re.fullmatch(r"[a-z]+", word)
                       else re.escape(word))
            found += [(m.start(), unit) for m in re.finditer(pattern, text)]
    return sorted(found)


def unit_conversion(question: str) -> Conversion | None:
    """The conversion a question asks for, a number between two units of one dimension (temperature, length,
    weight); None otherwise. The unit nearest the number is the one it is in."""
    q = unicodedata.normalize("NFKC", question).lower().replace("º", "°")
    numbers = list(_CONV_NUMBER.finditer(q))
    mentions = _unit_mentions(q)
    units = {u for _, u in mentions}
    if len(numbers) != 1 or len(units) != 2:
        return None
    a, b = sorted(units)
    dimension = _UNIT_WORDS[a][0]
    if _UNIT_WORDS[b][0] != dimension:
        return None
    at = numbers[0].start()
    source = min(mentions, key=lambda m: abs(m[0] - at))[1]
    target = b if source == a else a
    value = float(numbers[0].group(0).replace(",", "."))
    if source == "°C":
        converted = value * 9 / 5 + 32
    elif source == "°F":
        converted = (value - 32) * 5 / 9
    else:
        converted = value * _TO_BASE[source] / _TO_BASE[target]
    return Conversion(value, source, target, converted, FORMULAS.get(source) or FORMULAS[dimension])
