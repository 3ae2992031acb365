"""AIR-Bench Chat judge scores: the official ``cal_score.py`` aggregation, and what it hides.

The official semantics (``cal_score.py`` in OFA-Sys/AIR-Bench), which foakit matches:

* A judge line is ``strip()``-ed, its newlines removed, and split on single spaces; it
  must give exactly two tokens that ``int()`` reads, else the line is a failure.
* A score above 10 is a failure too: the script's ``exit(1)`` there raises
  ``SystemExit`` inside a bare ``try/except``, which catches it.  Scores of 0 or below are
  accepted (the script has no lower bound); foakit counts them apart (``below_1``).
* In the reference-first file (``chat_score.json``) the reference is Assistant 1: a win is
  ``second > first``.  In the swapped ("cir") file the model is Assistant 1: a win is
  ``first > second``; the script's printed averages keep their positional names
  (``gpt4_avg_score`` is Assistant 1's mean whichever answer that is).
* Per category: Sum (scored lines), Win_Rate, the two means.  Categories as
  :data:`~foakit.bench.airbench.format.CATEGORY_OF`.

Where foakit differs, and why:

* The printed ``success_num`` counts every two-token line, also those that then failed
  (not integers, above 10), and ``percentage`` divides by success + fail, so those lines
  count twice; foakit's ``scored`` / ``failures`` count each line once.  The official
  figures are reproduced in each order's ``official`` block.
* A line whose ``task_name`` is not one of the 8 tasks is scored by the script under the
  previous line's category (a stale variable), or crashes it on the first line; foakit
  counts it as a failure (``unknown_task``).
* An empty category divides by zero in the script; foakit reports None.
* foakit names the means by who is who (``mean_reference``, ``mean_model``) in both orders.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...errors import FormatError, ParameterError
from .format import CATEGORIES, CATEGORY_OF, MIXED, item_key, read_json_records

__all__ = ["ORDERS", "parse_judge_line", "judge_text", "read_judged", "score_order",
           "score_judged", "format_report"]

ORDERS = ("reference-first", "model-first")


def parse_judge_line(text: Any) -> tuple[int, int] | str:
    """The two positional scores of a judge line, or the reason it fails.

    Parameters
    ----------
    text : Any
        The judge's output (``gen`` / ``gpt-score``).

    Returns
    -------
    (int, int) or str
        ``(assistant_1, assistant_2)``; a str is the failure: ``"no judge output"``,
        ``"not two space-separated values"``, ``"not integers"``, ``"score above 10"``.
    """
    if not isinstance(text, str):
        return "no judge output"
    tokens = text.strip().replace("\n", "").split(" ")
    if len(tokens) != 2:
        return "not two space-separated values"
    try:
        a, b = int(tokens[0]), int(tokens[1])
    except ValueError:
        return "not integers"
    if a > 10 or b > 10:
        return "score above 10"
    return a, b


def judge_text(rec: Mapping) -> Any:
    """The judge output of a record: ``gpt-score`` (what ``cal_score.py`` reads), else
    ``gen`` (what ``score_chat.py`` writes)."""
    return rec["gpt-score"] if "gpt-score" in rec else rec.get("gen")


def read_judged(path: str | os.PathLike) -> list[dict]:
    """Judge records of a JSON-lines file or a JSON list; each must be an object with a
    ``task_name`` and ``gen`` or ``gpt-score``."""
    rows = read_json_records(path)
    out = []
    for line, rec in rows:
        if not isinstance(rec, Mapping):
            raise FormatError(path, f"record {line} is not an object", line=line)
        if "gen" not in rec and "gpt-score" not in rec:
            raise FormatError(path, f"record {line} has neither 'gen' nor 'gpt-score'",
                              line=line)
        if "task_name" not in rec:
            raise FormatError(path, f"record {line} has no 'task_name'", line=line)
        out.append(dict(rec, _line=line))
    return out


def _pair_key(rec: Mapping) -> str:
    return str(rec["pair_id"]) if rec.get("pair_id") is not None else item_key(rec)


def _mean(v: Sequence[float]) -> float | None:
    return round(sum(v) / len(v), 4) if v else None


def score_order(records: Iterable[Mapping], *, order: str = "reference-first") -> dict:
    """Aggregate one file of judge outputs.

    Parameters
    ----------
    records : iterable of mapping
        With ``task_name`` and ``gen`` / ``gpt-score``; a record's own ``order`` (written
        by ``foakit judge-requests``) overrides ``order``.
    order : {"reference-first", "model-first"}
        Who is Assistant 1: the reference answer (the official ``chat_score.json``) or the
        model (the swapped "cir" file).

    Returns
    -------
    dict
        ``categories`` (per category: ``n``, ``failures``, ``mean_reference``,
        ``mean_model``, ``win_rate``, ``wins``, ``ties``, ``losses``), ``mixed``,
        ``failures`` (by reason), ``below_1``, ``official`` (the figures ``cal_score.py``
        prints for this file), ``items`` (per key: category, reference, model, or
        failure).
    """
    if order not in ORDERS:
        raise ParameterError(f"{order=} is not one of {ORDERS}")
    ref: dict[str, list[int]] = {c: [] for c in CATEGORIES}
    mod: dict[str, list[int]] = {c: [] for c in CATEGORIES}
    first: dict[str, list[int]] = {c: [] for c in CATEGORIES}
    second: dict[str, list[int]] = {c: [] for c in CATEGORIES}
    wins, ties = Counter(), Counter()
    fails_by_cat, reasons = Counter(), Counter()
    official_wins = Counter()
    two_token_fail = 0
    below = 0
    items: dict[str, dict] = {}
    for rec in records:
        o = rec.get("order") or order
        if o not in ORDERS:
            raise ParameterError(f"record order {o!r} is not one of {ORDERS}")
        cat = CATEGORY_OF.get(rec.get("task_name"))
        key = _pair_key(rec)
        got = parse_judge_line(judge_text(rec))
        if cat is None:
            reasons["unknown_task"] += 1
            items[key] = {"category": None, "failure": "unknown_task"}
            continue
        if isinstance(got, str):
            reasons[got] += 1
            fails_by_cat[cat] += 1
            two_token_fail += got in ("not integers", "score above 10")
            items[key] = {"category": cat, "failure": got, "order": o}
            continue
        a, b = got
        below += min(a, b) < 1
        r, m = (a, b) if o == "reference-first" else (b, a)
        ref[cat].append(r)
        mod[cat].append(m)
        first[cat].append(a)
        second[cat].append(b)
        wins[cat] += m > r
        ties[cat] += m == r
        # the script's rule by file: reference-first wins on second > first, cir on first
        official_wins[cat] += (b > a) if o == "reference-first" else (a > b)
        items[key] = {"category": cat, "reference": r, "model": m, "order": o}
    cats = {}
    for c in CATEGORIES:
        n = len(ref[c])
        cats[c] = {"n": n, "failures": fails_by_cat[c], "mean_reference": _mean(ref[c]),
                   "mean_model": _mean(mod[c]),
                   "win_rate": round(wins[c] / n, 4) if n else None,
                   "wins": wins[c], "ties": ties[c], "losses": n - wins[c] - ties[c]}
    scored = sum(len(v) for v in ref.values())
    failures = sum(reasons.values())
    official = {c: {"Sum": len(first[c]),
                    "Win_Rate": official_wins[c] / len(first[c]) if first[c] else None,
                    "gpt4_avg_score": sum(first[c]) / len(first[c]) if first[c] else None,
                    "llm_avg_score": sum(second[c]) / len(second[c]) if second[c] else None}
                for c in CATEGORIES}
    ok_num = scored + two_token_fail
    official["fail_num"] = failures
    official["success_num"] = ok_num
    official["percentage"] = ok_num / (ok_num + failures) if ok_num + failures else None
    return {"order": order, "scored": scored, "failures": dict(sorted(reasons.items())),
            "failed": failures, "below_1": below, "categories": cats,
            "mixed": _mixed(cats), "official": official, "items": items}


def _mixed(cats: Mapping[str, Mapping]) -> dict:
    a, b = (cats[c] for c in MIXED)
    out: dict[str, Any] = {"n": a["n"] + b["n"], "failures": a["failures"] + b["failures"]}
    for k in ("mean_reference", "mean_model", "win_rate"):
        out[k] = (round((a[k] + b[k]) / 2, 4) if a[k] is not None and b[k] is not None
                  else None)
    return out


def _verdict(it: Mapping) -> int:
    return (it["model"] > it["reference"]) - (it["model"] < it["reference"])


def score_judged(judged: Sequence[Mapping], swapped: Sequence[Mapping] | None = None, *,
                 order: str = "reference-first") -> dict:
    """Score one file of judge outputs, or both orders.

    Parameters
    ----------
    judged : sequence of mapping
        Judge records in ``order`` (default reference-first).
    swapped : sequence of mapping, optional
        The same items judged in the other order.
    order : str
        The order of ``judged``.

    Returns
    -------
    dict
        ``orders`` (each :func:`score_order` without ``items``) and, with both files,
        ``combined``: per category and Mixed ``n`` (items scored in at least one order),
        ``both`` (in both), ``gpt_score`` (the mean over items of the model's score
        averaged over the orders it was scored in: evalscope's ``gpt_score``),
        ``reference_score`` (the same for the reference), ``win_rate`` (of the per-item
        means), ``agreement`` (items in both orders whose win / tie / loss is the same in
        both) and ``unpaired`` (keys in one file only).
    """
    first = score_order(judged, order=order)
    out: dict[str, Any] = {"orders": {order: first}}
    if swapped is None:
        first.pop("items")
        return out
    other = ORDERS[1] if order == ORDERS[0] else ORDERS[0]
    second = score_order(swapped, order=other)
    out["orders"][other] = second
    a_items, b_items = first.pop("items"), second.pop("items")
    per_cat: dict[str, dict[str, list]] = {c: {"m": [], "r": [], "agree": [], "both": []}
                                           for c in CATEGORIES}
    for key in sorted(set(a_items) | set(b_items)):
        got = [it for it in (a_items.get(key), b_items.get(key))
               if it is not None and "model" in it]
        if not got:
            continue
        c = got[0]["category"]
        m = sum(g["model"] for g in got) / len(got)
        r = sum(g["reference"] for g in got) / len(got)
        per_cat[c]["m"].append(m)
        per_cat[c]["r"].append(r)
        if len(got) == 2:
            per_cat[c]["both"].append(key)
            per_cat[c]["agree"].append(_verdict(got[0]) == _verdict(got[1]))
    comb = {}
    for c, d in per_cat.items():
        n = len(d["m"])
        wins = sum(m > r for m, r in zip(d["m"], d["r"], strict=True))
        comb[c] = {"n": n, "both": len(d["both"]), "gpt_score": _mean(d["m"]),
                   "reference_score": _mean(d["r"]),
                   "win_rate": round(wins / n, 4) if n else None,
                   "agreement": round(sum(d["agree"]) / len(d["agree"]), 4)
                   if d["agree"] else None}
    a, b = (comb[c] for c in MIXED)
    mixed = {"n": a["n"] + b["n"], "both": a["both"] + b["both"]}
    for k in ("gpt_score", "reference_score", "win_rate", "agreement"):
        mixed[k] = round((a[k] + b[k]) / 2, 4) if a[k] is not None and b[k] is not None \
            else None
    out["combined"] = {"categories": comb, "mixed": mixed,
                       "unpaired": sorted(set(a_items) ^ set(b_items))}
    return out


def _fmt(v: Any) -> str:
    return "-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))


def format_report(report: Mapping) -> str:
    """A text table of :func:`score_judged`'s report."""
    lines = []
    for order, rep in report["orders"].items():
        lines.append(f"{order} (Assistant 1 = {'reference' if order == ORDERS[0] else 'model'}"
                     f"): {rep['scored']} scored, {rep['failed']} failed "
                     f"{dict(rep['failures']) or ''}")
        lines.append(f"  {'category':18s} {'n':>5s} {'fail':>5s} {'ref':>6s} {'model':>6s} "
                     f"{'win':>6s}")
        rows = list(rep["categories"].items()) + [("Mixed", rep["mixed"])]
        for c, d in rows:
            lines.append(f"  {c:18s} {d['n']:5d} {d['failures']:5d} "
                         f"{_fmt(d['mean_reference']):>6s} {_fmt(d['mean_model']):>6s} "
                         f"{_fmt(d['win_rate']):>6s}")
        off = rep["official"]
        if off["success_num"] != rep["scored"]:
            lines.append(f"  cal_score.py would print success_num {off['success_num']}: it "
                         f"also counts {off['success_num'] - rep['scored']} two-token line(s) "
                         "that then failed")
    comb = report.get("combined")
    if comb:
        lines.append("both orders (per-item mean over the orders):")
        lines.append(f"  {'category':18s} {'n':>5s} {'both':>5s} {'model':>6s} {'ref':>6s} "
                     f"{'win':>6s} {'agree':>6s}")
        rows = list(comb["categories"].items()) + [("Mixed", comb["mixed"])]
        for c, d in rows:
            lines.append(f"  {c:18s} {d['n']:5d} {d['both']:5d} {_fmt(d['gpt_score']):>6s} "
                         f"{_fmt(d['reference_score']):>6s} {_fmt(d['win_rate']):>6s} "
                         f"{_fmt(d['agreement']):>6s}")
        if comb["unpaired"]:
            lines.append(f"  {len(comb['unpaired'])} item(s) judged in one order only")
    return "\n".join(lines)


