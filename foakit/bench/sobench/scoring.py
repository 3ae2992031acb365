"""Score SO-Bench predictions locally by the official rules (docs/sobench.md).

The official scorer (``scripts/score_sobench.py`` of Spatial-Omni) has an LLM turn each
prediction into JSON fields, then applies local rules.  Without an API key it falls back to
regular expressions.  This module applies the same local rules, reading the values

* from the prediction's ``foakit`` object (``foakit.values``, field names of the official
  judge's JSON: ``angle_deg``, ``elevation_deg``, ``distance_m``, ``time_span``,
  ``onset_time_s``, ``count``, ``motion_label``, ``left_right``, ``height_relation``,
  ``distance_relation``) when present (``values="auto"``), or
* from the text exactly as the official no-API fallback does (``values="text"``): the
  FIRST number is the angle / elevation / distance / onset / count, the first two numbers
  are the time span (swapped when reversed), and the words left/right, higher/lower/same,
  closer/farther/same are searched for in that order.

Rules: azimuth wrapped error <= 20 deg; elevation |error| <= 10 deg; distance <= 1.0 m;
onset <= 0.2 s; count exact; ``detect_time`` scores the span IoU itself; ``speech_content``
WER <= 0.5 (computed locally, as the official scorer does); ``classify_motion`` by motion
label words; relations judged locally (the official scorer asks its LLM for
``relation_match``; its no-API fallback scores relations 0).  Source-identity tasks
(``detect_source``, ``identify_source_*``, ``multi_hop``) and ``spatial_temporal`` (which
needs a source match) are reported as needing the LLM judge unless ``source_match="exact"``.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ...errors import ParameterError
from .format import RELATION_TASKS, SOURCE_TASKS, TASKS, QAItem, prediction_text

__all__ = [
    "ScoreConfig",
    "FLOAT_RE",
    "extract_text_values",
    "motion_label",
    "motion_right",
    "question_options",
    "word_error_rate",
    "interval_iou",
    "angle_error_deg",
    "judge_record",
    "score_predictions",
    "format_report",
    "format_comparison",
]

FLOAT_RE = re.compile(r"[-+]?\d+(?:\.\d+)?")  # the official scorer's number pattern
_MOTION = (  # (label, pattern); specific labels before the generic "moving"
    ("moving_toward", r"approach\w*|(?:mov\w*|com\w*|get\w*) (?:closer|nearer|toward|towards)"
                      r"|toward(?:s)? the listener|moving_toward"),
    ("moving_away", r"reced\w*|(?:mov\w*|go\w*|get\w*) (?:away|farther|further)"
                    r"|away from the listener|moving_away"),
    ("moving_left", r"mov\w* (?:to the )?left(?:ward)?s?|leftwards?|right[- ]to[- ]left"
                    r"|from (?:the )?right to (?:the )?left|moving_left"),
    ("moving_right", r"mov\w* (?:to the )?right(?:ward)?s?|rightwards?|left[- ]to[- ]right"
                     r"|from (?:the )?left to (?:the )?right|moving_right"),
    ("stationary", r"stationary|static|motionless|not moving|does not move|doesn't move"
                   r"|(?:stays?|stands?|remains?|holds?) (?:still|in place|fixed)"),
    ("moving", r"moving|moves|in motion"),
)
_MOTION_RE = [(label, re.compile(rf"\b(?:{pat})\b")) for label, pat in _MOTION]
_RELATION_CHOICES = {
    "relative_left_right": ("left_right", ("left", "right")),
    "compare_elevation": ("height_relation", ("higher", "lower", "same")),
    "compare_distance": ("distance_relation", ("closer", "farther", "same")),
}
_FIELDS = ("angle_deg", "elevation_deg", "distance_m", "onset_time_s", "count", "time_span",
           "left_right", "height_relation", "distance_relation", "yes_no", "motion_label")
_SYNONYMS = {"nearer": "closer", "further": "farther", "above": "higher", "below": "lower"}
_UNITS = {"estimate_azimuth": "deg", "estimate_elevation": "deg", "estimate_distance": "m",
          "onset_from_location": "s", "count_sources": "", "speech_content": "WER"}


@dataclass(frozen=True)
class ScoreConfig:
    """Thresholds and reading options (defaults: the official scorer's).

    Attributes
    ----------
    angle_threshold_deg, elevation_threshold_deg : float
        Azimuth (wrapped) and elevation error limits, 20 and 10 degrees.
    distance_threshold_m, time_threshold_s : float
        1.0 m and 0.2 s.
    wer_threshold : float
        ``speech_content`` is correct at WER <= 0.5.
    values : {"auto", "text", "foakit"}
        Where values are read: the ``foakit`` object when present, else the text
        ("auto"); the text only, as the official no-API fallback ("text"); the object only.
    spatial_temporal_time_policy : {"semantic_times_iou", "semantic_only"}
        Official option: multiply the semantic match by the span IoU, or not.
    source_match : {"judge", "exact"}
        "judge": source-identity tasks need the LLM judge (not counted right or wrong).
        "exact": correct when the normalised canonical label appears in the prediction, a
        lower bound of the judge's ``exact_or_synonym``.
    text_order : {"code", "readme"}
        Which text field of a prediction is read
        (:data:`~foakit.bench.sobench.format.PREDICTION_TEXT_ORDERS`): the official code's
        order (``prediction_cleaned`` first; its published numbers come from it) or its
        README's (``prediction`` first).
    """

    angle_threshold_deg: float = 20.0
    elevation_threshold_deg: float = 10.0
    distance_threshold_m: float = 1.0
    time_threshold_s: float = 0.2
    wer_threshold: float = 0.5
    values: str = "auto"
    spatial_temporal_time_policy: str = "semantic_times_iou"
    source_match: str = "judge"
    text_order: str = "code"

    def __post_init__(self) -> None:
        choices = {"values": ("auto", "text", "foakit"), "source_match": ("judge", "exact"),
                   "text_order": ("code", "readme"),
                   "spatial_temporal_time_policy": ("semantic_times_iou", "semantic_only")}
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ParameterError(f"{name}={getattr(self, name)!r} must be one of {allowed}")
        for name in ("angle_threshold_deg", "elevation_threshold_deg", "distance_threshold_m",
                     "time_threshold_s", "wer_threshold"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ParameterError(f"{name}={value!r} must be a finite number >= 0")


def _norm(text: Any) -> str:
    return " ".join(str(text or "").strip().lower().split())


def _num(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _category(text: str, choices: Sequence[str]) -> str | None:
    """The official fallback's ``local_category``: first choice (in ``choices`` order)
    found anywhere in the normalised text."""
    norm = _norm(text)
    return next((c for c in choices if c in norm), None)


def motion_label(text: Any) -> str | None:
    """The motion label a text states: stationary, moving_toward, moving_away, moving_left,
    moving_right or moving (the official judge's labels); None when none.

    The earliest specific phrase wins; the generic "moving" only when nothing specific
    is said.  "moving left" = from the listener's right towards the left.
    """
    norm = _norm(str(text or "").replace("_", " "))
    found = []
    for label, pat in _MOTION_RE:
        m = pat.search(norm)
        if m:
            found.append((label == "moving", m.start(), label))
    return min(found)[2] if found else None


def motion_right(pred: str, gold: str) -> bool:
    """Whether a stated motion label ``pred`` answers the target label ``gold`` (both as
    :func:`motion_label` gives them): the same label, or either way for a generic
    "moving"."""
    return pred == gold or (gold == "moving" and pred.startswith("mov"))


def extract_text_values(text: Any) -> dict[str, Any]:
    """Values the official no-API fallback reads from a prediction text, plus the motion
    label (which that fallback does not read; see :func:`motion_label`)."""
    s = str(text or "")
    floats = [float(m.group(0)) for m in FLOAT_RE.finditer(s)]
    first = floats[0] if floats else None
    span = None
    if len(floats) >= 2:
        span = sorted(floats[:2])
    return {
        "angle_deg": first,
        "elevation_deg": first,
        "distance_m": first,
        "onset_time_s": first,
        "count": int(first) if first is not None else None,
        "time_span": span,
        "left_right": _category(s, ("left", "right")),
        "height_relation": _category(s, ("higher", "lower", "same")),
        "distance_relation": _category(s, ("closer", "farther", "same")),
        "yes_no": "no" if re.search(r"\bno\b", _norm(s)) else
                  ("yes" if re.search(r"\byes\b", _norm(s)) else None),
        "motion_label": motion_label(s),
    }


def angle_error_deg(prediction_deg: float, target_deg: float) -> float:
    """Wrapped absolute azimuth error in degrees (0..180)."""
    delta = (float(prediction_deg) - float(target_deg)) % 360.0
    return min(delta, 360.0 - delta)


def interval_iou(pred: Sequence[float] | None, target: Sequence[float] | None) -> float | None:
    """IoU of two time spans (each swapped when reversed); None when either is unusable."""
    if pred is None or target is None or len(pred) != 2 or len(target) != 2:
        return None
    vals = [_num(v) for v in (*pred, *target)]
    if any(v is None for v in vals):
        return None
    ps, pe = sorted(vals[:2])
    gs, ge = sorted(vals[2:])
    inter = max(0.0, min(pe, ge) - max(ps, gs))
    union = max(pe, ge) - min(ps, gs)
    return inter / union if union > 0 else 0.0


def _transcript_words(text: Any) -> list[str]:
    value = str(text or "").lower().replace("_", " ")
    return re.sub(r"[^\w\s']", " ", value).split()


def word_error_rate(reference: Any, hypothesis: Any) -> float:
    """Word error rate (substitutions + deletions + insertions over reference words), on
    lower-cased words stripped of punctuation (the official normalisation)."""
    ref, hyp = _transcript_words(reference), _transcript_words(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    row = list(range(len(hyp) + 1))
    for i, rw in enumerate(ref, start=1):
        prev, row[0] = row[0], i
        for j, hw in enumerate(hyp, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (rw != hw))
    return row[-1] / len(ref)


def _transcript_candidates(text: str) -> list[str]:
    """The text, its quoted parts, and what follows a "says:" / "transcript:" marker."""
    out = [text]
    out += [next(g for g in groups if g) for groups in
            re.findall(r'"([^"]+)"|\u201c([^\u201d]+)\u201d|\'([^\']+)\'', text)]
    for pat in (r"(?i)(?:transcript|spoken words|speech content|says|said|answer)\s*[:\uff1a]"
                r"\s*(.+)$", r"(?i)(?:says|said)\s*,?\s*[\"\u201c']?(.+?)[\"\u201d']?$"):
        m = re.search(pat, text, flags=re.DOTALL)
        if m and m.group(1).strip():
            out.append(m.group(1))
    return [c.strip(" \t\r\n\"'\u201c\u201d") for c in out]


def _label(text: str) -> str:
    t = _norm(str(text).replace("_", " ")).strip(" .,;:!?\"'()")
    return re.sub(r"^(?:the|a|an)\s+", "", t)


def _contains(text: str, label: str) -> bool:
    return bool(label) and re.search(rf"(?<!\w){re.escape(label)}(?!\w)", text) is not None


def question_options(question: str) -> tuple[str, str] | None:
    """The two sources a comparison question names ("..., the dog or the car?"), as
    normalised labels (lower case, no article); None when it names no such pair."""
    q = _norm(question)
    m = re.search(r"between (.+?) and (.+?)[,?.]", q)
    if m is None:
        sent = next((s for s in re.split(r"(?<=[?.!])\s", q) if " or " in s), "")
        if " or " not in sent:
            return None
        left, right = sent.split(" or ", 1)
        left = re.split(r"[,:;]", left)[-1]
        left = re.sub(r"^\s*(?:is|are|was|which|who|what|does|do)\b\s*", "", left)
        right = re.split(r"[?,.;]", right)[0]
        right = re.sub(r"\s+(?:is |are )?(?:closer|nearer|farther|further|higher|lower|"
                       r"louder|quieter|above|below)\b.*$", "", right)
        m = (left, right)
    else:
        m = (m.group(1), m.group(2))
    a, b = (_label(" ".join(x.split()[-5:])) for x in m)
    return (a, b) if a and b and a != b else None


def _judge_relation(item: QAItem, text: str, values: Mapping[str, Any]) -> dict:
    gold_text = item.canonical_answer or item.answer
    key, choices = _RELATION_CHOICES[item.task_name]
    gold_norm = _norm(gold_text)
    for word, canon in _SYNONYMS.items():
        gold_norm = re.sub(rf"\b{word}\b", canon, gold_norm)
    if gold_norm.strip(" .") in ("yes", "no"):
        pred = values.get("yes_no")
        return {"metric": "yes_no", "target": gold_norm.strip(" ."), "value": pred,
                "correct": None if pred is None else float(pred == gold_norm.strip(" ."))}
    gold = _category(gold_norm, choices)
    if gold is not None:
        pred = values.get(key)
        if pred is None:
            norm = _norm(text)
            for word, canon in _SYNONYMS.items():
                norm = re.sub(rf"\b{word}\b", canon, norm)
            pred = _category(norm, choices)
        return {"metric": f"{key}_word", "target": gold, "value": pred,
                "correct": None if pred is None else float(pred == gold)}
    gold_label = _label(gold_text)
    if not gold_label:
        return {"metric": "relation", "status": "no_target"}
    other = next((o for o in (question_options(item.question) or ()) if o != gold_label), None)
    norm, found = _norm(text), {}
    for lab in sorted({gold_label, other} - {None}, key=len, reverse=True):
        found[lab] = _contains(norm, lab)
        norm = re.sub(rf"(?<!\w){re.escape(lab)}(?!\w)", " ", norm)
    named = [lab for lab, hit in found.items() if hit]
    return {"metric": "names_source", "target": gold_label, "value": named or None,
            "correct": None if not named else float(named == [gold_label])}


def _judge_source(item: QAItem, text: str, config: ScoreConfig, iou: float | None) -> dict:
    gold = item.canonical_answer or item.answer
    out: dict[str, Any] = {"metric": "source_semantic", "iou": iou}
    if config.source_match == "judge" or not _label(gold):
        out["status"] = "needs_judge"
        return out
    if item.task_name == "spatial_temporal":
        gold = re.split(r"\s+from\s+|,", _label(gold), maxsplit=1)[0]
    ok = _contains(_norm(text), _label(gold))
    out["correct"] = float(ok)
    if item.task_name == "spatial_temporal" and config.spatial_temporal_time_policy != \
            "semantic_only":
        out["correct"] = float(ok) * (iou or 0.0)
    return out


def judge_record(item: QAItem, row: Mapping[str, Any] | None,
                 config: ScoreConfig | None = None) -> dict[str, Any]:
    """Score one QA item against its prediction row (None when it has none).

    Returns
    -------
    dict
        ``qa_id``, ``task_name``, ``status`` ("scored", "unparsed", "missing",
        "no_target", "needs_judge"), ``correct`` (0..1, or None for "needs_judge"),
        ``metric``, ``value`` (what was read), ``target``, ``error`` (abs, in the task's
        unit), ``iou``, ``values_from`` ("foakit", "text" or None).
    """
    cfg = config or ScoreConfig()
    task, meta = item.task_name, item.answer_meta or {}
    res: dict[str, Any] = {"qa_id": item.qa_id, "task_name": task, "status": "scored",
                           "correct": None, "metric": None, "value": None, "target": None,
                           "error": None, "iou": None, "values_from": None}
    text = prediction_text(row, order=cfg.text_order) if row is not None else ""
    obj = row.get("foakit") if row is not None else None
    obj_values = obj.get("values") if isinstance(obj, Mapping) else None
    values: dict[str, Any] = {} if cfg.values == "foakit" else extract_text_values(text)
    if text and cfg.values != "foakit":
        res["values_from"] = "text"
    if cfg.values != "text" and isinstance(obj_values, Mapping):
        values.update({k: v for k, v in obj_values.items() if k in _FIELDS and v is not None})
        res["values_from"] = "foakit"
    abstained = bool(obj.get("abstained")) if isinstance(obj, Mapping) else False

    def numeric(key: str, target_key: str, limit: float, err_fn) -> None:
        res["metric"] = f"abs_error<={limit:g}{_UNITS.get(task, '')}"
        target, pred = _num(meta.get(target_key)), _num(values.get(key))
        res["target"], res["value"] = target, pred
        if target is None:
            res["status"] = "no_target"
        elif pred is not None:
            res["error"] = err_fn(pred, target)
            res["correct"] = float(res["error"] <= limit + 1e-9)

    if task == "estimate_azimuth":
        numeric("angle_deg", "azimuth_deg", cfg.angle_threshold_deg, angle_error_deg)
    elif task == "estimate_elevation":
        key = "elevation_deg" if values.get("elevation_deg") is not None else "angle_deg"
        numeric(key, "elevation_deg", cfg.elevation_threshold_deg, lambda p, t: abs(p - t))
    elif task == "estimate_distance":
        numeric("distance_m", "distance_m", cfg.distance_threshold_m, lambda p, t: abs(p - t))
    elif task == "onset_from_location":
        numeric("onset_time_s", "onset_time", cfg.time_threshold_s, lambda p, t: abs(p - t))
    elif task == "count_sources":
        res["metric"] = "exact_count"
        target, pred = _num(meta.get("active_count")), _num(values.get("count"))
        res["target"] = None if target is None else int(target)
        res["value"] = None if pred is None else int(pred)
        if target is None:
            res["status"] = "no_target"
        elif pred is not None:
            res["error"] = abs(int(pred) - int(target))
            res["correct"] = float(int(pred) == int(target))
    elif task in ("detect_time", "spatial_temporal", "detect_source"):
        span = values.get("time_span")
        res["target"], res["value"] = meta.get("time_span"), span
        res["iou"] = interval_iou(span, meta.get("time_span"))
        if task == "detect_time":
            res["metric"] = "span_iou"
            if meta.get("time_span") is None:
                res["status"] = "no_target"
            elif res["iou"] is not None:
                res["correct"] = res["iou"]
        else:
            res.update(_judge_source(item, text, cfg, res["iou"]))
    elif task in SOURCE_TASKS:
        res.update(_judge_source(item, text, cfg, None))
    elif task in RELATION_TASKS:
        res.update(_judge_relation(item, text, values))
    elif task == "classify_motion":
        res["metric"] = "motion_label"
        gold = motion_label(item.canonical_answer or item.answer)
        pred = values.get("motion_label")
        pred = motion_label(pred) if pred is not None else None
        res["target"], res["value"] = gold, pred
        if gold is None:
            res["status"] = "no_target"
        elif pred is not None:
            res["correct"] = float(motion_right(pred, gold))
    elif task == "speech_content":
        res["metric"] = f"wer<={cfg.wer_threshold:g}"
        gold = item.canonical_answer or item.answer
        res["target"] = gold
        wer = min(word_error_rate(gold, c) for c in _transcript_candidates(text)) if text \
            else word_error_rate(gold, "")
        res["error"], res["value"] = wer, text or None
        res["correct"] = float(wer <= cfg.wer_threshold) if text else None
    else:
        res["status"] = "needs_judge"
        res["metric"] = "unknown_task"
    if row is None:
        res.update(status="missing", correct=0.0, parsed=False)
        return res
    if res["status"] == "needs_judge":
        res["correct"] = None
        res["parsed"] = bool(text) and not abstained
        return res
    res["parsed"] = res["status"] == "scored" and res["correct"] is not None
    if res["status"] == "scored" and res["correct"] is None:
        res["status"] = "unparsed"
    if res["status"] != "scored":
        res["correct"] = 0.0
    return res


def _match(items: Sequence[QAItem], rows: Sequence[Mapping[str, Any]]):
    """Pair prediction rows with QA items: by ``qa_id`` (the k-th row of an id with the k-th
    record of it), else by position when ``audio_path`` and ``task_name`` agree."""
    by_id: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        by_id.setdefault(item.qa_id, []).append(i)
    taken: dict[int, Mapping[str, Any]] = {}
    duplicates: Counter = Counter()
    unmatched: list[str] = []
    for pos, row in enumerate(rows):
        rid = row.get("qa_id", row.get("pair_id"))
        line = row.get("_line", pos + 1)
        if rid is not None:
            free = [i for i in by_id.get(str(rid), []) if i not in taken]
            if free:
                taken[free[0]] = row
            elif str(rid) in by_id:
                duplicates[str(rid)] += 1
            else:
                unmatched.append(f"line {line}: qa_id {rid!r} is not in the QA file")
            continue
        if pos < len(items) and pos not in taken and \
                str(row.get("audio_path")) == items[pos].audio_path and \
                str(row.get("task_name")) == items[pos].task_name:
            taken[pos] = row
        else:
            unmatched.append(f"line {line}: no qa_id and no QA record at this position "
                             "with the same audio_path and task_name")
    return taken, dict(duplicates), unmatched


def _stats(xs: list[float]) -> tuple[float | None, float | None]:
    return (float(statistics.fmean(xs)) if xs else None,
            float(statistics.median(xs)) if xs else None)


def score_predictions(items: Sequence[QAItem], rows: Sequence[Mapping[str, Any]],
                      config: ScoreConfig | None = None) -> dict[str, Any]:
    """Score prediction rows against SO-Bench QA items.

    Parameters
    ----------
    items : sequence of QAItem
        From :func:`foakit.bench.sobench.load_qa`.
    rows : sequence of dict
        Prediction rows (:func:`foakit.bench.sobench.read_predictions`).
    config : ScoreConfig, optional
        Thresholds and reading options (official defaults).

    Returns
    -------
    dict
        ``overall`` (``n``, ``task_aware_accuracy`` = mean of ``correct`` over ALL records
        with records needing the LLM judge counted 0 -- the official definition and its
        no-API behaviour, so a lower bound --, ``task_aware_accuracy_judged`` over the
        locally judged records only, ``macro_accuracy`` = mean of per-task accuracies over
        tasks with judged records), ``per_task``, ``problems`` (missing predictions,
        duplicate or unmatched prediction ids, duplicate QA ids), ``config`` and
        ``records`` (one :func:`judge_record` result per QA item, in QA order).
    """
    cfg = config or ScoreConfig()
    taken, duplicates, unmatched = _match(items, rows)
    records = [judge_record(item, taken.get(i), cfg) for i, item in enumerate(items)]
    per_task: dict[str, dict[str, Any]] = {}
    order = {t: i for i, t in enumerate(TASKS)}
    for task in sorted({r["task_name"] for r in records}, key=lambda t: (order.get(t, 99), t)):
        rs = [r for r in records if r["task_name"] == task]
        judged = [r for r in rs if r["status"] != "needs_judge"]
        entry: dict[str, Any] = {
            "n": len(rs),
            "n_scored": len(judged),
            "n_parsed": sum(bool(r["parsed"]) for r in rs),
            "n_missing": sum(r["status"] == "missing" for r in rs),
            "n_no_target": sum(r["status"] == "no_target" for r in rs),
            "n_needs_judge": len(rs) - len(judged),
            "metric": rs[0]["metric"],
            "accuracy": _stats([r["correct"] for r in judged])[0],
        }
        entry["parse_rate"] = entry["n_parsed"] / len(rs)
        errs = [r["error"] for r in rs if r["error"] is not None]
        if errs and task != "speech_content":
            entry["mean_abs_error"], entry["median_abs_error"] = _stats(errs)
            entry["error_unit"] = _UNITS.get(task, "")
        if task == "speech_content":
            entry["mean_wer"], entry["median_wer"] = _stats(errs)
        ious = [r["iou"] for r in rs if r["iou"] is not None]
        if task in ("detect_time", "spatial_temporal", "detect_source"):
            entry["mean_iou"], entry["median_iou"] = _stats(ious)
        per_task[task] = entry
    judged = [r for r in records if r["status"] != "needs_judge"]
    accs = [e["accuracy"] for e in per_task.values() if e["accuracy"] is not None]
    overall = {
        "n": len(records),
        "n_judged": len(judged),
        "n_needs_judge": len(records) - len(judged),
        "task_aware_accuracy": (sum(r["correct"] for r in judged) / len(records))
        if records else None,
        "task_aware_accuracy_judged": _stats([r["correct"] for r in judged])[0],
        "macro_accuracy": _stats(accs)[0],
        "values_from": dict(Counter(str(r["values_from"]) for r in records)),
    }
    problems = {
        "missing_predictions": [r["qa_id"] for r in records if r["status"] == "missing"],
        "duplicate_prediction_ids": duplicates,
        "unmatched_predictions": unmatched,
        "duplicate_qa_ids": sorted(k for k, v in Counter(it.qa_id for it in items).items()
                                   if v > 1),
    }
    notes = ("task_aware_accuracy is the official micro mean over all records; records "
             "needing the LLM judge count 0 there (as with the official no-API fallback), so "
             "it is a lower bound; task_aware_accuracy_judged leaves them out. Missing "
             "predictions count 0. Relations and motion are judged locally by label words.")
    return {"overall": overall, "per_task": per_task, "problems": problems,
            "config": asdict(cfg), "notes": notes, "records": records}


def format_report(report: Mapping[str, Any]) -> str:
    """The report as a plain-text table (one row per task, then the averages)."""

    def pct(x: float | None) -> str:
        return "  judge" if x is None else f"{100 * x:6.1f}%"

    lines = [f"{'task':<28} {'n':>5} {'scored':>6} {'acc':>7} {'parse':>7}  error / IoU"]
    for task, e in report["per_task"].items():
        extra = ""
        if e.get("median_abs_error") is not None:
            extra = f"median |err| {e['median_abs_error']:.3g} {e.get('error_unit', '')}"
        if e.get("mean_iou") is not None:
            extra = f"mean IoU {e['mean_iou']:.3f}"
        if e.get("mean_wer") is not None:
            extra = f"mean WER {e['mean_wer']:.3f}"
        lines.append(f"{task:<28} {e['n']:>5} {e['n_scored']:>6} {pct(e['accuracy'])} "
                     f"{pct(e['parse_rate'])}  {extra}".rstrip())
    o = report["overall"]
    lines.append(f"{'task_aware_accuracy (micro)':<28} {o['n']:>5} {o['n_judged']:>6} "
                 f"{pct(o['task_aware_accuracy'])}  (needs-judge records count 0)")
    lines.append(f"{'  judged records only':<28} {'':>5} {'':>6} "
                 f"{pct(o['task_aware_accuracy_judged'])}")
    lines.append(f"{'macro average (tasks)':<28} {'':>5} {'':>6} {pct(o['macro_accuracy'])}")
    p = report["problems"]
    for key, label in (("missing_predictions", "QA items without a prediction"),
                       ("duplicate_prediction_ids", "duplicate prediction qa_ids"),
                       ("unmatched_predictions", "predictions matching no QA item"),
                       ("duplicate_qa_ids", "duplicate qa_ids in the QA file")):
        if p.get(key):
            lines.append(f"{label}: {len(p[key])}")
    return "\n".join(lines)


def format_comparison(reports: Mapping[str, Mapping[str, Any]]) -> str:
    """Several reports side by side (one column per name, e.g. oracle / dsp / prior).

    Each cell is the task accuracy (mean IoU for ``detect_time``); "judge" where the task
    needs the LLM judge, "-" where the report has no such task.
    """
    names = list(reports)
    tasks: list[str] = []
    for rep in reports.values():
        tasks += [t for t in rep["per_task"] if t not in tasks]
    order = {t: i for i, t in enumerate(TASKS)}
    tasks.sort(key=lambda t: (order.get(t, 99), t))
    width = max(8, *(len(n) for n in names))
    n_of = {t: next(r["per_task"][t]["n"] for r in reports.values() if t in r["per_task"])
            for t in tasks}
    lines = [f"{'task':<28} {'n':>5} " + " ".join(f"{n:>{width}}" for n in names)]

    def cell(x: float | None) -> str:
        return f"{'judge':>{width}}" if x is None else f"{100 * x:>{width - 1}.1f}%"

    for t in tasks:
        cells = [cell(r["per_task"][t]["accuracy"]) if t in r["per_task"] else
                 f"{'-':>{width}}" for r in reports.values()]
        lines.append(f"{t:<28} {n_of[t]:>5} " + " ".join(cells))
    for key, label in (("task_aware_accuracy", "task_aware_accuracy (micro)"),
                       ("task_aware_accuracy_judged", "  judged records only"),
                       ("macro_accuracy", "macro average (tasks)")):
        lines.append(f"{label:<28} {'':>5} " + " ".join(cell(r["overall"][key])
                                                        for r in reports.values()))
    return "\n".join(lines)
