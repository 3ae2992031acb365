"""Known label errors injected into an SO-Bench root, to measure the audit (and test it).

* :func:`inject_sobench_errors`: a copy of an SO-Bench root (audio hard-linked where
  possible) with errors in ``answer_meta``; returns what was changed.
* :func:`mirror_sobench_labels`: every direction label through one convention hypothesis
  (for the convention audit).

The error kinds and the rule that an error must change a label beyond the scorer's tolerance
are those of :mod:`foakit.audit.inject`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np

from ...audit.hypotheses import apply_hypothesis
from ...audit.inject import az_error, link_tree
from ...errors import ParameterError
from .format import load_qa

__all__ = ["inject_sobench_errors", "mirror_sobench_labels"]


def _replace_number(text: str, old: float, new: float, fmt: str) -> str:
    o, n = fmt.format(old), fmt.format(new)
    return re.sub(rf"(?<![\d.]){re.escape(o)}(?![\d])", n, text, count=1) if o in text else text


def _write_qa(root_out: Path, rows: list[dict], name: str) -> None:
    p = root_out / "qa" / name
    if p.is_symlink() or p.exists():
        p.unlink()
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def inject_sobench_errors(
    root_in: str | os.PathLike,
    root_out: str | os.PathLike,
    *,
    rate: float = 0.2,
    seed: int = 0,
    fields: tuple[str, ...] = ("azimuth", "elevation", "onset", "time_span"),
    min_az_change_deg: float = 40.0,
    min_abs_el_deg: float = 15.0,
    shift_s: tuple[float, float] = (1.5, 3.0),
    split: str = "test",
) -> list[dict]:
    """Write a copy of an SO-Bench root with errors in about ``rate`` of its labels.

    Parameters
    ----------
    root_in, root_out : str or PathLike
        Source root and the new root (audio and other files are hard-linked).
    rate : float
        Fraction of the eligible labels (of ``fields``) changed.
    seed : int
    fields : tuple of str
        ``azimuth`` (mirror, front-back or offset >= 50 deg), ``elevation`` (sign flip),
        ``onset`` and ``time_span`` (shift by ``shift_s``, kept inside the clip).
    min_az_change_deg : float
        Azimuth errors change the label by at least this much.
    min_abs_el_deg : float
        Only elevations at least this far from 0 are flipped.
    shift_s : (float, float)
        Range of time shifts (s), either sign.
    split : str

    Returns
    -------
    list of dict
        ``qa_id``, ``field``, ``kind``, ``old``, ``new`` per changed label.
    """
    if not 0 <= rate <= 1:
        raise ParameterError(f"{rate=} must be in [0, 1]")
    qa = load_qa(root_in, split)
    root_in, root_out = Path(root_in), Path(root_out)
    link_tree(root_in, root_out)
    durations = _sobench_durations(root_in)
    rng = np.random.default_rng(seed)
    eligible = []
    for i, it in enumerate(qa.items):
        m = it.answer_meta or {}
        if "azimuth" in fields and it.task_name == "estimate_azimuth" and "azimuth_deg" in m:
            eligible.append((i, "azimuth"))
        if ("elevation" in fields and it.task_name == "estimate_elevation"
                and abs(float(m.get("elevation_deg", 0.0))) >= min_abs_el_deg):
            eligible.append((i, "elevation"))
        if "onset" in fields and "onset_time" in m:
            eligible.append((i, "onset"))
        if "time_span" in fields and "time_span" in m:
            eligible.append((i, "time_span"))
    n = int(round(rate * len(eligible)))
    picks = sorted(rng.choice(len(eligible), size=n, replace=False).tolist()) if n else []
    rows = [dict(it.record) for it in qa.items]
    changes = []
    for k in picks:
        i, fld = eligible[k]
        row = rows[i]
        meta = dict(row.get("answer_meta") or {})
        dur = durations.get(str(row.get("audio_id")), None)
        if fld == "azimuth":
            old = float(meta["azimuth_deg"])
            new, kind = az_error(rng, old, min_az_change_deg)
            meta["azimuth_deg"] = new
            for key in ("answer", "canonical_answer"):
                row[key] = _replace_number(str(row.get(key, "")), round(old), round(new), "{:d}")
        elif fld == "elevation":
            old = float(meta["elevation_deg"])
            new, kind = -old, "elevation_sign"
            meta["elevation_deg"] = new
            for key in ("answer", "canonical_answer"):
                row[key] = _replace_number(str(row.get(key, "")), int(round(old)),
                                           int(round(new)), "{:d}")
        elif fld == "onset":
            old = float(meta["onset_time"])
            new = _shifted(rng, [old, old], shift_s, dur)[0]
            kind = "onset_shift"
            meta["onset_time"] = new
            for key in ("answer", "canonical_answer"):
                row[key] = _replace_number(str(row.get(key, "")), old, new, "{:.1f}")
        else:
            old = [float(v) for v in meta["time_span"]]
            new = _shifted(rng, old, shift_s, dur)
            kind = "span_shift"
            meta["time_span"] = new
            for key in ("answer", "canonical_answer"):
                text = str(row.get(key, ""))
                text = _replace_number(text, old[0], new[0], "{:.1f}")
                row[key] = _replace_number(text, old[1], new[1], "{:.1f}")
        row["answer_meta"] = meta
        changes.append({"qa_id": str(row["qa_id"]), "field": fld, "kind": kind, "old": old,
                        "new": new})
    _write_qa(root_out, rows, qa.path.name)
    return changes


def _shifted(rng: np.random.Generator, span: list[float], shift_s: tuple[float, float],
             dur: float | None) -> list[float]:
    a, b = span
    length = b - a
    hi = (dur if dur is not None else b + shift_s[1]) - max(length, 0.5)
    for _ in range(50):
        d = rng.uniform(*shift_s) * rng.choice([-1.0, 1.0])
        if 0.0 <= a + d <= hi:
            return [round(float(a + d), 2), round(float(b + d), 2)]
    d = shift_s[0] if a - shift_s[0] < 0 else -shift_s[0]
    return [round(float(max(0.0, a + d)), 2), round(float(max(0.0, a + d) + length), 2)]


def _sobench_durations(root: Path) -> dict[str, float]:
    """Clip durations from ``truth/scenes.jsonl`` when present (synthetic corpora)."""
    p = root / "truth" / "scenes.jsonl"
    out: dict[str, float] = {}
    if p.is_file():
        for line in p.read_text(encoding="utf-8").splitlines():
            if line.strip():
                d = json.loads(line)
                out[str(d.get("audio_id"))] = float(d.get("duration_s", 0.0))
    return out


def mirror_sobench_labels(root_in: str | os.PathLike, root_out: str | os.PathLike, *,
                          hypothesis: str = "mirror_azimuth", split: str = "test") -> int:
    """Copy an SO-Bench root with every direction label mapped through ``hypothesis``.

    Returns the number of labels changed.
    """
    qa = load_qa(root_in, split)
    root_out = Path(root_out)
    link_tree(Path(root_in), root_out)
    rows, n = [], 0
    for it in qa.items:
        row = dict(it.record)
        meta = dict(row.get("answer_meta") or {})
        if "azimuth_deg" in meta:
            az, _ = apply_hypothesis(hypothesis, float(meta["azimuth_deg"]), 0.0)
            meta["azimuth_deg"] = round(float(az), 1)
            n += 1
        if "elevation_deg" in meta:
            _, el = apply_hypothesis(hypothesis, 0.0, float(meta["elevation_deg"]))
            meta["elevation_deg"] = round(float(el), 1)
            n += 1
        row["answer_meta"] = meta
        rows.append(row)
    _write_qa(root_out, rows, qa.path.name)
    return n
