"""RMS-AQA scoring: A_S1, A_S2 and the grounded A_GS2, overall and per category.

For N two-stage items (``docs/rmsaqa.md``):

* ``A_S1`` = stage-1 correct / N
* ``A_S2`` = stage-2 correct / N
* ``A_GS2`` = items with **both** stages correct / N

each overall and per stage-2 category, with ``n`` and the parse rates (the share of
answers from which :func:`~foakit.bench.rmsaqa.extract.extract_letter` read a letter).
An item without an answer line counts as wrong at both stages and is listed; an answer
for an item the QA file does not hold is an error naming it (the scorer would otherwise
silently score a different benchmark copy).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import FormatError
from .extract import RULES, extract_letter
from .format import CATEGORIES, QASet

__all__ = ["METRICS", "score_answers", "format_report", "format_comparison"]

#: The metrics of a report block, in table order.
METRICS = ("A_S1", "A_S2", "A_GS2", "parse_S1", "parse_S2")


def _block(n: int, c1: int, c2: int, cg: int, p1: int, p2: int) -> dict:
    def rate(k: int) -> float | None:
        return round(k / n, 6) if n else None

    return {"n": n, "A_S1": rate(c1), "A_S2": rate(c2), "A_GS2": rate(cg),
            "parse_S1": rate(p1), "parse_S2": rate(p2),
            "correct_S1": c1, "correct_S2": c2, "correct_GS2": cg}


def score_answers(qa: QASet, rows: Sequence[Mapping[str, Any]], *,
                  answers_file: str | os.PathLike = "answers") -> dict:
    """Score answer rows against a QA set.

    Parameters
    ----------
    qa : QASet
        From :func:`~foakit.bench.rmsaqa.format.load_qa`.
    rows : sequence of mapping
        ``segment_id``, ``item``, ``stage1``, ``stage2`` (as
        :func:`~foakit.bench.rmsaqa.format.read_answers` returns them; ``_line`` is used
        in messages when present).
    answers_file : str or PathLike
        Named in errors.

    Returns
    -------
    dict
        ``overall`` and ``by_category`` (category name -> block), each block with ``n``,
        ``A_S1``, ``A_S2``, ``A_GS2``, ``parse_S1``, ``parse_S2`` (rates in 0-1) and the
        correct counts; ``rules`` (how many answers each extraction rule read, per
        stage); ``problems``: ``missing`` (items without an answer, as
        ``"segment_id#item"``), ``duplicates`` (the later lines, ignored), ``unparsed``
        (counts per stage) and ``qa_problems`` (the QA file's record problems).

    Raises
    ------
    FormatError
        An answer names an item that is not in the QA set (the message names it and the
        line).
    """
    items = qa.items
    index = {it.key: i for i, it in enumerate(items)}
    got: list[Mapping[str, Any] | None] = [None] * len(items)
    duplicates = []
    for row in rows:
        key = (str(row.get("segment_id")), int(row.get("item", 0)))
        i = index.get(key)
        if i is None:
            raise FormatError(answers_file, f"answer for unknown item segment_id={key[0]!r} "
                              f"item={key[1]} (not in {qa.path})", line=row.get("_line"))
        if got[i] is not None:
            duplicates.append(f"{key[0]}#{key[1]} (line {row.get('_line')})")
            continue
        got[i] = row
    cats = {name: [0, 0, 0, 0, 0, 0] for name in CATEGORIES.values()}
    total = [0, 0, 0, 0, 0, 0]
    rules = {"S1": dict.fromkeys(RULES, 0), "S2": dict.fromkeys(RULES, 0)}
    missing = []
    for it, row in zip(items, got, strict=True):
        acc = cats.setdefault(it.category, [0, 0, 0, 0, 0, 0])
        ok1 = ok2 = False
        p1 = p2 = False
        if row is None:
            missing.append(f"{it.segment_id}#{it.index}")
        else:
            l1, r1 = extract_letter(row.get("stage1"), tuple(it.stage1.options))
            l2, r2 = extract_letter(row.get("stage2"), tuple(it.stage2.options))
            p1, p2 = l1 is not None, l2 is not None
            ok1, ok2 = l1 == it.stage1.answer, l2 == it.stage2.answer
            if r1:
                rules["S1"][r1] += 1
            if r2:
                rules["S2"][r2] += 1
        for a in (acc, total):
            a[0] += 1
            a[1] += ok1
            a[2] += ok2
            a[3] += ok1 and ok2
            a[4] += p1
            a[5] += p2
    n_ans = len(items) - len(missing)
    return {
        "qa_file": str(qa.path),
        "answers_file": str(answers_file),
        "overall": _block(*total),
        "by_category": {name: _block(*a) for name, a in cats.items()},
        "rules": rules,
        "problems": {
            "missing": missing,
            "duplicates": duplicates,
            "unparsed": {"S1": n_ans - sum(rules["S1"].values()),
                         "S2": n_ans - sum(rules["S2"].values())},
            "qa_problems": [str(p) for p in qa.problems],
        },
        "metric": "A_GS2 = both stages correct / N; A_S1, A_S2 per stage; an item with no "
                  "answer or an unparsed answer counts as wrong",
    }


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _rows(report: Mapping) -> list[tuple[str, Mapping]]:
    out = [("overall", report["overall"])]
    out += [(name, b) for name, b in report["by_category"].items()]
    return out


def format_report(report: Mapping) -> str:
    """A per-category table (percentages) of one report."""
    head = f"{'category':<22} {'n':>6} " + " ".join(f"{m:>8}" for m in METRICS)
    lines = [head, "-" * len(head)]
    for name, b in _rows(report):
        lines.append(f"{name:<22} {b['n']:>6} " + " ".join(f"{_pct(b[m]):>8}" for m in METRICS))
    p = report["problems"]
    lines.append(f"missing answers: {len(p['missing'])}; unparsed: stage 1 "
                 f"{p['unparsed']['S1']}, stage 2 {p['unparsed']['S2']}; duplicates ignored: "
                 f"{len(p['duplicates'])}")
    return "\n".join(lines)


def format_comparison(reports: Mapping[str, Mapping], *,
                      metrics: Sequence[str] = ("A_S1", "A_S2", "A_GS2")) -> str:
    """Several reports side by side: one row per category and metric, one column each."""
    names = list(reports)
    width = max(8, *(len(n) for n in names))
    head = f"{'category':<22} {'metric':<8} {'n':>6} " + " ".join(f"{n:>{width}}" for n in names)
    lines = [head, "-" * len(head)]
    first = reports[names[0]]
    for cat, b in _rows(first):
        for m in metrics:
            vals = []
            for n in names:
                r = reports[n]
                blk = r["overall"] if cat == "overall" else r["by_category"].get(cat, {})
                vals.append(f"{_pct(blk.get(m)):>{width}}")
            lines.append(f"{cat:<22} {m:<8} {b['n']:>6} " + " ".join(vals))
    return "\n".join(lines)
