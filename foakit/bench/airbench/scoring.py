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
  count twice; foakit's ``scored`` / ``failures`` count each line once.  Each order's
  ``official`` block gives the script's own figures for files whose task names are all
  known (see the next point for the rest).
* A line whose ``task_name`` is not one of the 8 tasks is scored by the script under the
  previous line's category (a stale variable), or crashes it on the first line; foakit
  counts it as a failure (``unknown_task``).
* An empty category divides by zero in the script; foakit reports None.
* foakit names the means by who is who (``mean_reference``, ``mean_model``) in both orders.
* ``cal_score.py`` reads one file per order.  foakit reads the order of each record from
  its ``order`` field (``foakit judge-requests`` writes both orders into one file) and
  scores each order apart: a file holding both orders gives the figures of its two halves.
* Beside the 5 categories, the 8 tasks are reported; figures are unrounded in the JSON.
* The combined figure over both orders (``model_score``) is foakit's own: the per-item
  mean over the orders whose line parsed, an item whose every line failed left out and
  counted (``unscored``).  evalscope's AIR-Bench Chat ``gpt_score`` (v1.7.1 to v1.9.1)
  differs: it reads the judge's text leniently and scores an item with no parsed pass 0.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...errors import FormatError, ParameterError
from .format import CATEGORIES, CATEGORY_OF, MIXED, TASKS, item_key, read_json_records

__all__ = ["ORDERS", "parse_judge_line", "judge_text", "read_judged", "split_orders",
           "score_order", "score_judged", "format_report"]

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
    return sum(v) / len(v) if v else None


def _order_of(rec: Mapping, default: str) -> str:
    o = rec.get("order") or default
    if o not in ORDERS:
        raise ParameterError(f"record order {o!r} is not one of {ORDERS}")
    return o


class _Tally:
    """Scores of one group (a category or a task) in one order."""

    def __init__(self) -> None:
        self.ref: list[int] = []
        self.mod: list[int] = []
        self.first: list[int] = []
        self.second: list[int] = []
        self.wins = self.ties = self.official_wins = self.failures = 0

    def add(self, a: int, b: int, order: str) -> None:
        r, m = (a, b) if order == "reference-first" else (b, a)
        self.ref.append(r)
        self.mod.append(m)
        self.first.append(a)
        self.second.append(b)
        self.wins += m > r
        self.ties += m == r
        # the script's rule by file: reference-first wins on second > first, cir on first
        self.official_wins += (b > a) if order == "reference-first" else (a > b)

    def figures(self) -> dict:
        n = len(self.ref)
        return {"n": n, "failures": self.failures, "mean_reference": _mean(self.ref),
                "mean_model": _mean(self.mod), "win_rate": self.wins / n if n else None,
                "wins": self.wins, "ties": self.ties, "losses": n - self.wins - self.ties}

    def official(self) -> dict:
        n = len(self.first)
        return {"Sum": n, "Win_Rate": self.official_wins / n if n else None,
                "gpt4_avg_score": _mean(self.first), "llm_avg_score": _mean(self.second)}


def score_order(records: Iterable[Mapping], *, order: str = "reference-first") -> dict:
    """Aggregate the judge outputs of one order.

    Parameters
    ----------
    records : iterable of mapping
        With ``task_name`` and ``gen`` / ``gpt-score``.  A record that names its own
        ``order`` (as ``foakit judge-requests`` writes it) must name ``order``: a file
        holding both orders is split by :func:`score_judged`, never pooled here.
    order : {"reference-first", "model-first"}
        Who is Assistant 1: the reference answer (the official ``chat_score.json``) or the
        model (the swapped "cir" file).

    Returns
    -------
    dict
        ``categories`` and ``tasks`` (per category / per task of the 8: ``n``,
        ``failures``, ``mean_reference``, ``mean_model``, ``win_rate``, ``wins``,
        ``ties``, ``losses``), ``mixed``, ``failures`` (by reason), ``below_1``,
        ``official`` (the figures ``cal_score.py`` prints for this file), ``items`` (per
        key: category, task, reference, model, or failure).  Figures are unrounded.

    Raises
    ------
    ParameterError
        ``order`` is not one of :data:`ORDERS`, or a record names another order.
    """
    if order not in ORDERS:
        raise ParameterError(f"{order=} is not one of {ORDERS}")
    cats = {c: _Tally() for c in CATEGORIES}
    tasks = {t: _Tally() for t in CATEGORY_OF}
    reasons: Counter = Counter()
    two_token_fail = 0
    below = 0
    items: dict[str, dict] = {}
    for rec in records:
        o = _order_of(rec, order)
        if o != order:
            raise ParameterError(f"record {rec.get('_line', '?')} has order {o!r}, not "
                                 f"{order!r}: score a file holding both orders with "
                                 "score_judged, which splits it by its order field")
        task = rec.get("task_name")
        cat = CATEGORY_OF.get(task)
        key = _pair_key(rec)
        got = parse_judge_line(judge_text(rec))
        if cat is None:
            reasons["unknown_task"] += 1
            items[key] = {"category": None, "task": task, "failure": "unknown_task"}
            continue
        if isinstance(got, str):
            reasons[got] += 1
            cats[cat].failures += 1
            tasks[task].failures += 1
            two_token_fail += got in ("not integers", "score above 10")
            items[key] = {"category": cat, "task": task, "failure": got, "order": o}
            continue
        a, b = got
        below += min(a, b) < 1
        cats[cat].add(a, b, o)
        tasks[task].add(a, b, o)
        r, m = (a, b) if o == "reference-first" else (b, a)
        items[key] = {"category": cat, "task": task, "reference": r, "model": m, "order": o}
    by_cat = {c: t.figures() for c, t in cats.items()}
    scored = sum(d["n"] for d in by_cat.values())
    failures = sum(reasons.values())
    official: dict[str, Any] = {c: t.official() for c, t in cats.items()}
    ok_num = scored + two_token_fail
    official["fail_num"] = failures
    official["success_num"] = ok_num
    official["percentage"] = ok_num / (ok_num + failures) if ok_num + failures else None
    return {"order": order, "scored": scored, "failures": dict(sorted(reasons.items())),
            "failed": failures, "below_1": below, "categories": by_cat,
            "tasks": {t: x.figures() for t, x in tasks.items()},
            "mixed": _mixed(by_cat), "official": official, "items": items}


def _mixed(cats: Mapping[str, Mapping]) -> dict:
    a, b = (cats[c] for c in MIXED)
    out: dict[str, Any] = {"n": a["n"] + b["n"], "failures": a["failures"] + b["failures"]}
    for k in ("mean_reference", "mean_model", "win_rate"):
        out[k] = (a[k] + b[k]) / 2 if a[k] is not None and b[k] is not None else None
    return out


def _verdict(it: Mapping) -> int:
    return (it["model"] > it["reference"]) - (it["model"] < it["reference"])


def split_orders(judged: Iterable[Mapping], *, order: str = "reference-first"
                 ) -> dict[str, list[Mapping]]:
    """The records of a judged file by their ``order`` field (a record without one is in
    ``order``), in file order; only the orders present are keys.

    Raises
    ------
    ParameterError
        ``order`` or a record's order is not one of :data:`ORDERS`.
    """
    if order not in ORDERS:
        raise ParameterError(f"{order=} is not one of {ORDERS}")
    out: dict[str, list[Mapping]] = {}
    for rec in judged:
        out.setdefault(_order_of(rec, order), []).append(rec)
    return out


def _combine(names: Iterable[str], field: str, a_items: Mapping, b_items: Mapping) -> dict:
    """Per-item means over the two orders, grouped by ``field`` (category or task)."""
    per: dict[str, dict[str, list]] = {g: {"m": [], "r": [], "agree": [], "both": [],
                                           "unscored": []} for g in names}
    for key in sorted(set(a_items) | set(b_items)):
        seen = [it for it in (a_items.get(key), b_items.get(key)) if it is not None]
        if not seen or seen[0].get(field) not in per:
            continue
        d = per[seen[0][field]]
        got = [it for it in seen if "model" in it]
        if not got:
            d["unscored"].append(key)
            continue
        d["m"].append(sum(g["model"] for g in got) / len(got))
        d["r"].append(sum(g["reference"] for g in got) / len(got))
        if len(got) == 2:
            d["both"].append(key)
            d["agree"].append(_verdict(got[0]) == _verdict(got[1]))
    out = {}
    for g, d in per.items():
        n = len(d["m"])
        wins = sum(m > r for m, r in zip(d["m"], d["r"], strict=True))
        out[g] = {"n": n, "both": len(d["both"]), "unscored": len(d["unscored"]),
                  "model_score": _mean(d["m"]), "reference_score": _mean(d["r"]),
                  "win_rate": wins / n if n else None,
                  "agreement": sum(d["agree"]) / len(d["agree"]) if d["agree"] else None}
    return out


def score_judged(judged: Sequence[Mapping], swapped: Sequence[Mapping] | None = None, *,
                 order: str = "reference-first") -> dict:
    """Score judge outputs: one file holding one or both orders, or one file per order.

    Each record's order is its ``order`` field, else ``order`` for ``judged`` and the
    other order for ``swapped``.  The records are split by order and each order is scored
    apart (:func:`score_order`), so one file holding both orders gives exactly the figures
    of the two files it could be split into.

    Parameters
    ----------
    judged : sequence of mapping
        Judge records.
    swapped : sequence of mapping, optional
        More judge records, by default in the order other than ``order``.
    order : str
        The order of ``judged``'s records that name none.

    Returns
    -------
    dict
        ``orders`` (each order present: :func:`score_order` without ``items``) and, when
        both orders are present, ``combined``: per category, per task and Mixed, ``n``
        (items with a parsed line in at least one order), ``both`` (in both),
        ``unscored`` (items whose every line failed: left out of the figures),
        ``model_score`` (the mean over items of the model's score averaged over the
        orders it was scored in; foakit's own figure, see ``docs/airbench.md``),
        ``reference_score`` (the same for the reference), ``win_rate`` (of the per-item
        means), ``agreement`` (items in both orders whose win / tie / loss is the same in
        both) and ``unpaired`` (keys in one order only).  Figures are unrounded.
    """
    if order not in ORDERS:
        raise ParameterError(f"{order=} is not one of {ORDERS}")
    other = ORDERS[1] if order == ORDERS[0] else ORDERS[0]
    groups = split_orders(judged, order=order)
    for o, recs in split_orders(swapped or [], order=other).items():
        groups.setdefault(o, []).extend(recs)
    if not groups:
        groups[order] = []
    scored = {o: score_order(groups[o], order=o) for o in ORDERS if o in groups}
    out: dict[str, Any] = {"orders": scored}
    items = {o: rep.pop("items") for o, rep in scored.items()}
    if len(scored) < 2:
        return out
    a_items, b_items = items[ORDERS[0]], items[ORDERS[1]]
    comb = _combine(CATEGORIES, "category", a_items, b_items)
    a, b = (comb[c] for c in MIXED)
    mixed = {"n": a["n"] + b["n"], "both": a["both"] + b["both"],
             "unscored": a["unscored"] + b["unscored"]}
    for k in ("model_score", "reference_score", "win_rate", "agreement"):
        mixed[k] = (a[k] + b[k]) / 2 if a[k] is not None and b[k] is not None else None
    out["combined"] = {"categories": comb,
                       "tasks": _combine(TASKS, "task", a_items, b_items),
                       "mixed": mixed, "unpaired": sorted(set(a_items) ^ set(b_items))}
    return out


def _fmt(v: Any) -> str:
    return "-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))


def format_report(report: Mapping) -> str:
    """A text table of :func:`score_judged`'s report (figures rounded for print only)."""
    lines = []
    head = (f"  {'category / task':30s} {'n':>5s} {'fail':>5s} {'ref':>6s} {'model':>6s} "
            f"{'win':>6s}")
    for order, rep in report["orders"].items():
        lines.append(f"{order} (Assistant 1 = {'reference' if order == ORDERS[0] else 'model'}"
                     f"): {rep['scored']} scored, {rep['failed']} failed "
                     f"{dict(rep['failures']) or ''}")
        lines.append(head)
        rows = list(rep["categories"].items()) + [("Mixed", rep["mixed"])] + [
            (f"  {t}", d) for t, d in rep["tasks"].items()]
        for c, d in rows:
            lines.append(f"  {c:30s} {d['n']:5d} {d['failures']:5d} "
                         f"{_fmt(d['mean_reference']):>6s} {_fmt(d['mean_model']):>6s} "
                         f"{_fmt(d['win_rate']):>6s}")
        off = rep["official"]
        if off["success_num"] != rep["scored"]:
            lines.append(f"  cal_score.py would print success_num {off['success_num']}: it "
                         f"also counts {off['success_num'] - rep['scored']} two-token line(s) "
                         "that then failed")
    comb = report.get("combined")
    if comb:
        lines.append("both orders (foakit's per-item mean over the orders whose line parsed):")
        lines.append(f"  {'category / task':30s} {'n':>5s} {'both':>5s} {'unsc':>5s} "
                     f"{'model':>6s} {'ref':>6s} {'win':>6s} {'agree':>6s}")
        rows = list(comb["categories"].items()) + [("Mixed", comb["mixed"])] + [
            (f"  {t}", d) for t, d in comb["tasks"].items()]
        for c, d in rows:
            lines.append(f"  {c:30s} {d['n']:5d} {d['both']:5d} {d['unscored']:5d} "
                         f"{_fmt(d['model_score']):>6s} {_fmt(d['reference_score']):>6s} "
                         f"{_fmt(d['win_rate']):>6s} {_fmt(d['agreement']):>6s}")
        if comb["unpaired"]:
            lines.append(f"  {len(comb['unpaired'])} item(s) judged in one order only")
    return "\n".join(lines)
