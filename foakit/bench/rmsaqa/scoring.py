"""RMS-AQA scoring: A_S1, A_S2 and the grounded A_GS2, overall and per category.

As the official meter computes them (``rmsaqachallenge/rmsaqa-code``,
``spatial_af3/metrics.py`` and ``evaluation.py``, commit ``bd0b89d3``; ``docs/rmsaqa.md``),
for N two-stage items:

* ``A_S1`` = stage-1 correct / N
* ``A_S2`` = stage-2 correct / N
* ``A_GS2`` = items with **both** stages correct / N

each overall and per stage-2 category.  The option letter of each answer is read by the
official rule (:func:`~foakit.bench.rmsaqa.extract.extract_letter`) and its status
(``answer_tag``, ``regex_match``, ``no_option_found``, ``empty_generation``) is reported
per answer and counted per stage.  An item without an answer row counts as wrong at both
stages and is listed (status ``missing``); an answer for an item of a record the loader
dropped is listed with the reason and not scored, so one broken record does not stop the
others' scores; an answer whose ``segment_id`` the QA file does not hold at all is an
error naming it (the official log is written from the QA set it scores, so such a row
means answers and QA are from different benchmark copies).  How stage 2 was conditioned
(on nothing, the predicted or the reference stage-1 answer) is carried from each row into
the report.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import FormatError, ParameterError
from .extract import STATUSES, extract_letter
from .format import CATEGORIES, QASet

__all__ = ["METRICS", "score_answers", "format_report", "format_comparison"]

#: The metrics of a report block, in table order.
METRICS = ("A_S1", "A_S2", "A_GS2", "parse_S1", "parse_S2")


def _block(n: int, c1: int, c2: int, cg: int, p1: int, p2: int) -> dict:
    def rate(k: int) -> float | None:
        return k / n if n else None

    return {"n": n, "A_S1": rate(c1), "A_S2": rate(c2), "A_GS2": rate(cg),
            "parse_S1": rate(p1), "parse_S2": rate(p2),
            "correct_S1": c1, "correct_S2": c2, "correct_GS2": cg}


def _read(row: Mapping[str, Any], stage: int, options: Mapping[str, str]
          ) -> tuple[str | None, str]:
    """The letter and status of one stage's answer in a row."""
    status = row.get(f"status{stage}")
    if status in STATUSES:  # the official log's own extraction of its own letter
        v = row.get(f"stage{stage}")
        letter = v.strip().upper() if isinstance(v, str) else None
        return (letter if letter in options else None), status
    return extract_letter(row.get(f"stage{stage}"), options)


def score_answers(qa: QASet, rows: Sequence[Mapping[str, Any]], *,
                  answers_file: str | os.PathLike = "answers") -> dict:
    """Score answer rows against a QA set.

    Parameters
    ----------
    qa : QASet
        From :func:`~foakit.bench.rmsaqa.format.load_qa` (with labels).
    rows : sequence of mapping
        ``segment_id``, ``item``, ``stage1``, ``stage2`` and optionally
        ``stage2_conditioning``, ``status1`` / ``status2`` (as
        :func:`~foakit.bench.rmsaqa.answers.read_answers` returns them; ``_line`` is used
        in messages when present).
    answers_file : str or PathLike
        Named in errors.

    Returns
    -------
    dict
        ``overall`` and ``by_category`` (category name -> block), each block with ``n``,
        ``A_S1``, ``A_S2``, ``A_GS2``, ``parse_S1``, ``parse_S2`` (unrounded rates in 0-1,
        None for an empty category) and the correct counts; ``extract_status`` (per
        stage, how many answers had each status); ``stage2_conditioning`` (how many rows
        said each conditioning); ``answers`` (per item: the letter and status read at
        each stage, whether each is correct, the conditioning); ``problems``:
        ``missing`` (items without an answer, as ``"segment_id#item"``), ``duplicates``
        (the later rows, ignored), ``dropped_at_load`` (rows answering an item of a
        record the loader dropped, or dropped pairs of: ``"segment_id#item (line N):
        dropped at load: <why>"``, not scored), ``unparsed`` (answers without a letter,
        per stage) and ``qa_problems`` (the QA set's record problems).

    Raises
    ------
    FormatError
        An answer names an item whose ``segment_id`` is neither loaded nor among the
        records the loader dropped, while every dropped record had a readable
        ``segment_id`` (the message names it and the line).
    ParameterError
        The QA set was loaded without labels.
    """
    if not qa.labels:
        raise ParameterError(f"the QA set {qa.path} was loaded with labels=False; scoring "
                             "needs its answers")
    items = qa.items
    index = {it.key: i for i, it in enumerate(items)}
    # why each record the loader dropped (or dropped pairs of) was dropped, by its id
    dropped: dict[str, list[str]] = {}
    unnamed = []  # dropped records whose id could not be read: any unknown id may be theirs
    for p in qa.problems:
        if p.dropped and p.segment_id:
            dropped.setdefault(p.segment_id, []).append(p.problem)
        elif p.dropped:
            unnamed.append(str(p))
    got: list[Mapping[str, Any] | None] = [None] * len(items)
    duplicates, unloaded = [], []
    for row in rows:
        key = (str(row.get("segment_id")), int(row.get("item", 0)))
        i = index.get(key)
        if i is None and key[0] in dropped:
            unloaded.append(f"{key[0]}#{key[1]} (line {row.get('_line')}): dropped at "
                            f"load: {'; '.join(dropped[key[0]])}")
            continue
        if i is None and unnamed:
            more = f" and {len(unnamed) - 2} more" if len(unnamed) > 2 else ""
            unloaded.append(f"{key[0]}#{key[1]} (line {row.get('_line')}): not among the "
                            f"loaded records; records without a readable segment_id were "
                            f"dropped at load: {'; '.join(unnamed[:2])}{more}")
            continue
        if i is None:
            raise FormatError(answers_file, f"answer for unknown item segment_id={key[0]!r} "
                              f"item={key[1]} (not in {qa.path})", line=row.get("_line"))
        if got[i] is not None:
            duplicates.append(f"{key[0]}#{key[1]} (line {row.get('_line')})")
            continue
        got[i] = row
    cats = {name: [0, 0, 0, 0, 0, 0] for name in CATEGORIES.values()}
    total = [0, 0, 0, 0, 0, 0]
    status = {"S1": Counter(dict.fromkeys(STATUSES, 0)),
              "S2": Counter(dict.fromkeys(STATUSES, 0))}
    conditioning: Counter = Counter()
    missing, per_item = [], []
    for it, row in zip(items, got, strict=True):
        acc = cats.setdefault(it.category, [0, 0, 0, 0, 0, 0])
        l1 = l2 = None
        s1 = s2 = cond = "missing"
        if row is None:
            missing.append(f"{it.segment_id}#{it.index}")
        else:
            l1, s1 = _read(row, 1, it.stage1.options)
            l2, s2 = _read(row, 2, it.stage2.options)
            status["S1"][s1] += 1
            status["S2"][s2] += 1
            cond = str(row.get("stage2_conditioning") or "unstated")
            conditioning[cond] += 1
        ok1, ok2 = l1 is not None and l1 == it.stage1.answer, \
            l2 is not None and l2 == it.stage2.answer
        per_item.append({"segment_id": it.segment_id, "item": it.index,
                         "category": it.category, "stage1_option": l1,
                         "stage1_status": s1, "stage1_correct": ok1, "stage2_option": l2,
                         "stage2_status": s2, "stage2_correct": ok2,
                         "grounded_stage2_correct": ok1 and ok2,
                         "stage2_conditioning": cond})
        for a in (acc, total):
            a[0] += 1
            a[1] += ok1
            a[2] += ok2
            a[3] += ok1 and ok2
            a[4] += l1 is not None
            a[5] += l2 is not None
    n_ans = len(items) - len(missing)
    return {
        "qa_file": str(qa.path),
        "answers_file": str(answers_file),
        "overall": _block(*total),
        "by_category": {name: _block(*a) for name, a in cats.items()},
        "extract_status": {k: dict(v) for k, v in status.items()},
        "stage2_conditioning": dict(conditioning),
        "answers": per_item,
        "problems": {
            "missing": missing,
            "duplicates": duplicates,
            "dropped_at_load": unloaded,
            "unparsed": {"S1": n_ans - total[4],
                         "S2": n_ans - total[5]},
            "qa_problems": [str(p) for p in qa.problems],
        },
        "metric": "A_GS2 = both stages correct / N; A_S1, A_S2 per stage (the official "
                  "metrics.py); letters by the official extract_mcq_option rule; an item "
                  "with no answer or no letter counts as wrong",
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
    unloaded = p.get("dropped_at_load") or []
    if unloaded:
        lines.append(f"answers for items dropped at load (not scored): {len(unloaded)}")
        lines += [f"  {u}" for u in unloaded]
    for stage in ("S1", "S2"):
        counts = report["extract_status"][stage]
        lines.append(f"extraction {stage}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    cond = report.get("stage2_conditioning") or {}
    lines.append("stage 2 conditioned on: " + (", ".join(
        f"{k} {v}" for k, v in sorted(cond.items())) or "-"))
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
