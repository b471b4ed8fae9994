"""Gates: thresholds on eval metrics that turn a report into a pass/fail exit status (for CI).

Syntax of one gate (``--gate``, repeatable; quote it in a shell, ``<`` and ``>`` are redirections)::

    [VARIANT.]METRIC (>= | <=) NUMBER
    [VARIANT.]METRIC (>= | <=) [VARIANT.]METRIC [(+ | -) NUMBER]
    relations.(precision | recall | f1 | cooccurrence_violations) (>= | <=) NUMBER

    agentic.key_fact_hit>=0.85                       one variant
    agentic.key_fact_hit>=naive.key_fact_hit+0.15    relative to another variant's figure
    silent_failure<=0.05                             no variant: every evaluated variant must pass
    relations.precision>=0.8                         the relation metric (needs --relations)

METRIC is a key of the per-variant metrics (``key_fact_hit_rate``, ``false_abstention_rate``,
``silent_failure_rate``, ``routing_accuracy``, ...); the suffixes ``_rate`` and ``_accuracy`` may be left out.
A metric that is null for the set (it applies to no question) misses its gate: a gate that cannot be checked
does not pass.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from rag.types import RagError

RELATIONS_SCOPE = "relations"
RELATION_METRICS: tuple[str, ...] = ("precision", "recall", "f1", "cooccurrence_violations")
EPSILON = 1e-9  # 0.85 >= 0.85 computed as 0.8499999999 still passes

_NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
_REF = rf"(?:(?P<{{p}}scope>{_NAME})\.)?(?P<{{p}}metric>{_NAME})"
_UNSIGNED = r"(?:\d+(?:\.\d*)?|\.\d+)"
_NUMBER = r"[+-]?" + _UNSIGNED
_GATE_RE = re.compile(
    r"^\s*" + _REF.format(p="l") + r"\s*(?P<op>>=|<=)\s*(?:"
    rf"(?P<number>{_NUMBER})"
    r"|" + _REF.format(p="r") + rf"\s*(?:(?P<sign>[+-])\s*(?P<offset>{_UNSIGNED}))?"
    r")\s*$")


class GateError(RagError):
    """A gate could not be parsed or names a metric or variant that does not exist."""


@dataclass(frozen=True)
class Gate:
    text: str  # as given
    variant: str | None  # None: every evaluated variant; "relations": the relation metric
    metric: str  # canonical metric key
    op: str  # ">=" or "<="
    number: float | None = None  # a fixed threshold, or
    ref_variant: str | None = None  # ... another figure of the report (None: the left side's variant)
    ref_metric: str | None = None
    offset: float = 0.0

    def describe_rhs(self, variant: str | None) -> str:
        if self.ref_metric is None:
            return f"{self.number:g}"
        ref = f"{self.ref_variant or variant}.{self.ref_metric}"
        return ref + (f" {'+' if self.offset >= 0 else '-'} {abs(self.offset):g}" if self.offset else "")


@dataclass(frozen=True)
class GateResult:
    gate: Gate
    variant: str | None
    value: float | None
    threshold: float | None
    passed: bool
    line: str

    def to_dict(self) -> dict[str, Any]:
        return {"gate": self.gate.text, "variant": self.variant, "metric": self.gate.metric, "op": self.gate.op,
                "value": self.value, "threshold": self.threshold, "passed": self.passed, "line": self.line}


def _canonical(metric: str, known: Iterable[str], scope: str | None) -> str:
    known = list(known)
    if scope == RELATIONS_SCOPE:
        if metric in RELATION_METRICS:
            return metric
        raise GateError(f"unknown relation metric {metric!r}: use one of {', '.join(RELATION_METRICS)}")
    for candidate in (metric, metric + "_rate", metric + "_accuracy"):
        if candidate in known:
            return candidate
    raise GateError(f"unknown metric {metric!r}: use one of {', '.join(known)} "
                    "(the suffixes _rate and _accuracy may be left out)")


def parse_gate(text: str, metrics: Iterable[str], variants: Iterable[str] | None = None) -> Gate:
    """One gate string -> Gate; ``metrics``: the per-variant metric keys; ``variants``: those evaluated (checked when
    given). Raises GateError with the expected syntax."""
    m = _GATE_RE.match(text or "")
    if not m:
        raise GateError(f"cannot read gate {text!r}: write [VARIANT.]METRIC>=X or [VARIANT.]METRIC<=X, e.g. "
                        "'agentic.key_fact_hit>=0.85' or 'agentic.key_fact_hit>=naive.key_fact_hit+0.15'")
    metrics = list(metrics)
    variants = None if variants is None else list(variants)

    def check_variant(v: str | None) -> None:
        if v is not None and v != RELATIONS_SCOPE and variants is not None and v not in variants:
            raise GateError(f"gate {text!r}: variant {v!r} is not evaluated (--variants {','.join(variants)})")

    scope = m.group("lscope")
    check_variant(scope)
    metric = _canonical(m.group("lmetric"), metrics, scope)
    if m.group("number") is not None:
        return Gate(text=text, variant=scope, metric=metric, op=m.group("op"), number=float(m.group("number")))
    rscope = m.group("rscope")
    if (rscope == RELATIONS_SCOPE) != (scope == RELATIONS_SCOPE) and rscope is not None:
        raise GateError(f"gate {text!r}: compare relation metrics with relation metrics only")
    check_variant(rscope)
    rmetric = _canonical(m.group("rmetric"), metrics, rscope or scope)
    offset = float(m.group("offset") or 0.0) * (-1.0 if m.group("sign") == "-" else 1.0)
    return Gate(text=text, variant=scope, metric=metric, op=m.group("op"), ref_variant=rscope, ref_metric=rmetric,
                offset=offset)


def parse_gates(texts: Iterable[str], metrics: Iterable[str], variants: Iterable[str] | None = None) -> list[Gate]:
    """Every gate string -> Gate; all problems are reported together in one GateError."""
    gates, problems = [], []
    metrics = list(metrics)
    for t in texts:
        try:
            gates.append(parse_gate(t, metrics, variants))
        except GateError as exc:
            problems.append(str(exc))
    if problems:
        raise GateError("; ".join(problems))
    return gates


def _lookup(report: dict[str, Any], scope: str | None, metric: str) -> float | None:
    if scope == RELATIONS_SCOPE:
        block = report.get("relations") or {}
    else:
        block = (report.get("variants") or {}).get(scope) or {}
    value = block.get(metric)
    return None if value is None or isinstance(value, bool) else float(value)


def check_gates(gates: Iterable[Gate], report: dict[str, Any]) -> list[GateResult]:
    """Each gate against the report: one result per (gate, variant); a gate without a variant expands to every
    evaluated variant. A null value or threshold misses."""
    results: list[GateResult] = []
    for gate in gates:
        if gate.variant is not None:
            targets: list[str | None] = [gate.variant]
        else:
            targets = list((report.get("variants") or {}).keys())
        for variant in targets:
            value = _lookup(report, variant, gate.metric)
            if gate.ref_metric is None:
                threshold = gate.number
            else:
                ref = _lookup(report, gate.ref_variant or variant, gate.ref_metric)
                threshold = None if ref is None else round(ref + gate.offset, 6)
            name = f"{variant}.{gate.metric}" if variant else gate.metric
            rhs = gate.describe_rhs(variant)
            if value is None or threshold is None:
                missing = name if value is None else rhs
                passed = False
                line = f"gate MISS  {name} {gate.op} {rhs}: {missing} was not measured (null) in this evaluation"
            else:
                passed = value >= threshold - EPSILON if gate.op == ">=" else value <= threshold + EPSILON
                shown = f"{threshold:.3f}" if gate.ref_metric is not None else ""
                line = (f"gate {'ok  ' if passed else 'MISS'}  {name} = {value:.3f} {gate.op} {rhs}"
                        + (f" = {shown}" if shown else ""))
            results.append(GateResult(gate=gate, variant=variant, value=value, threshold=threshold, passed=passed,
                                      line=line))
    return results


def summary_line(results: list[GateResult]) -> str:
    missed = [r for r in results if not r.passed]
    if not missed:
        return f"gates: all {len(results)} passed"
    return f"gates: {len(missed)} of {len(results)} MISSED: " + ", ".join(
        r.gate.text.strip() + (f" [{r.variant}]" if r.gate.variant is None and r.variant else "") for r in missed)
