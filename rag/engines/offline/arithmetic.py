"""Arithmetic for direct answers: number-list aggregates and a safe expression evaluator."""
from __future__ import annotations

import ast
import math
import operator
import re
import unicodedata

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
