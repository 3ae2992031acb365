"""RMS-AQA baselines: oracle, chance, prior and a blind dsp answerer.

Every two-stage item gets one answer line (``segment_id``, ``item``, ``stage1``,
``stage2``) and a ``foakit`` object saying what each answer rests on.

* ``oracle``: the reference letters (a check of the scorer: 100 % everywhere).
* ``chance``: uniform letters from ``seed``.
* ``prior``: per stage and stage-2 category, the letter most often right in the file (ties
  to the earlier letter): what an answer-position bias alone scores.  It READS THE LABELS
  of the file it answers (it is a ceiling for position bias, not a blind baseline).
* ``dsp``: from ``foakit analyze`` output, BLIND: it never reads an answer field (the
  command line loads the QA set with ``labels=False``).  Each option is read for
  what it claims (:mod:`.claims`); claims are held against the analysed events and the
  best-supported option is chosen.  Counts: the option nearest the number of sources the
  analysis found, or, when the question asks the most sounds at one moment
  (:func:`foakit.bench.reader.count_kind`: "what is the maximum number of overlapping
  sounds?"), nearest the most of those sources active at once (:func:`max_overlap`).
  Directions: the option nearest (great circle, azimuth) to an analysed event's
  direction.  Times: the interval with the highest IoU with an event, or the
  onset nearest an event onset.  Stage 1: options listing different numbers of sounds are
  told apart by the count.  Options the signal scores equally are broken by option order
  (the first tied letter).  Where the signal decides nothing (no option states a count,
  direction or time; which source is which class; actions; audio that cannot be
  analysed) dsp ABSTAINS: the answer is null (scored as wrong, extraction status
  ``empty_generation``) and ``abstained`` says so.  The rule reads only the options, the
  question and the audio.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from ...conventions import azimuth_difference
from ...errors import ParameterError
from ..reader import count_kind
from .claims import Claim, onset_question, read_claim
from .format import Item, QASet, check_audio

__all__ = ["KINDS", "LABELLED", "DspConfig", "BaselineRun", "oracle_answers", "chance_answers",
           "prior_letters", "prior_answers", "source_count", "max_overlap", "overlap_count",
           "dsp_answer", "dsp_answers",
           "analyze_for_qa", "run_baseline", "analysis_key"]

KINDS = ("oracle", "chance", "prior", "dsp")
#: The baselines that read the answer fields.
LABELLED = ("oracle", "prior")


@dataclass(frozen=True)
class DspConfig:
    """The dsp baseline's decision thresholds (the analysis keeps its own defaults).

    The defaults are what ``benchmarks/rmsaqa_bar.py`` chooses on its tuning seeds
    (101-104); its figures are reported on other seeds.

    Attributes
    ----------
    min_source_s : float
        A source counts when its events last at least this long in total (s).
    min_confidence : float
        ... and its strongest event has at least this confidence.
    merge_deg : float
        Sources whose directions are closer than this (degrees) count as one.
    """

    min_source_s: float = 1.0
    min_confidence: float = 0.0
    merge_deg: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class BaselineRun:
    """Answer rows and what went wrong on the way.

    Attributes
    ----------
    rows : list of dict
        One per two-stage item, in QA order.
    problems : list of str
        QA record problems and audio problems (missing, broken or refused files).
    """

    rows: list[dict]
    problems: list[str] = field(default_factory=list)


def analysis_key(audio_path: str) -> str:
    """The relative path the analysis records an ``audio_path`` under."""
    return str(PurePosixPath(*PurePosixPath(audio_path.replace("\\", "/")).parts))


def _row(it: Item, a1: str | None, a2: str | None, foakit: dict) -> dict:
    # every baseline answers stage 2 without its stage-1 answer
    return {"segment_id": it.segment_id, "item": it.index, "stage1": a1, "stage2": a2,
            "stage2_conditioning": "none", "foakit": foakit}


def oracle_answers(qa: QASet) -> list[dict]:
    """The reference letters."""
    return [_row(it, it.stage1.answer, it.stage2.answer,
                 {"kind": "oracle", "rests_on": "the reference answers"}) for it in qa]


def chance_answers(qa: QASet, *, seed: int = 0) -> list[dict]:
    """Uniform letters over each pair's options, from ``seed``."""
    rng = np.random.default_rng(seed)
    rows = []
    for it in qa:
        l1 = list(it.stage1.options)
        l2 = list(it.stage2.options)
        rows.append(_row(it, l1[int(rng.integers(len(l1)))], l2[int(rng.integers(len(l2)))],
                         {"kind": "chance", "seed": seed, "rests_on": "uniform letters"}))
    return rows


def prior_letters(qa: QASet) -> dict[tuple[int, str], str]:
    """(stage, category) -> the letter most often right in the file (ties: earlier letter).

    This reads the labels (the ``prior`` baseline is not blind).  Stage 1 is keyed by the
    category of the stage-2 pair it belongs to, like stage 2.

    Raises
    ------
    ParameterError
        The QA set was loaded without labels.
    """
    if not qa.labels:
        raise ParameterError(f"the prior reads the labels; {qa.path} was loaded with "
                             "labels=False")
    counts: dict[tuple[int, str], Counter] = {}
    for it in qa:
        counts.setdefault((1, it.category), Counter())[it.stage1.answer] += 1
        counts.setdefault((2, it.category), Counter())[it.stage2.answer] += 1
    return {k: min(c, key=lambda x: (-c[x], x)) for k, c in counts.items()}


def prior_answers(qa: QASet) -> list[dict]:
    """The per stage and category majority letter."""
    pri = prior_letters(qa)
    return [_row(it, pri[(1, it.category)], pri[(2, it.category)],
                 {"kind": "prior", "reads_labels": True,
                  "rests_on": f"the letter most often right in the file (its labels) for "
                  f"stage 1 / stage 2 of {it.category}"}) for it in qa]


def _sources(rec: Mapping, cfg: DspConfig) -> list[dict]:
    """The analysed sources that count: direction, total duration, events."""
    by: dict[Any, list[dict]] = {}
    for e in rec.get("events") or []:
        by.setdefault(e.get("source"), []).append(e)
    out = []
    for evs in by.values():
        dur = sum(e["offset_s"] - e["onset_s"] for e in evs)
        conf = max(float(e.get("confidence") or 0.0) for e in evs)
        if dur < cfg.min_source_s or conf < cfg.min_confidence:
            continue
        main = max(evs, key=lambda e: e["offset_s"] - e["onset_s"])
        out.append({"azimuth_deg": float(main["azimuth_deg"]), "duration_s": dur,
                    "confidence": conf, "events": evs})
    out.sort(key=lambda s: -s["duration_s"])
    kept: list[dict] = []
    for s in out:
        if all(abs(azimuth_difference(s["azimuth_deg"], k["azimuth_deg"])) >= cfg.merge_deg
               for k in kept):
            kept.append(s)
    return kept


def source_count(rec: Mapping, cfg: DspConfig = DspConfig()) -> int:
    """Number of sources the dsp baseline counts in an analysis record."""
    return len(_sources(rec, cfg))


def max_overlap(spans: Iterable[Iterable[Sequence[float]]]) -> int:
    """The most sources active at one moment.

    Parameters
    ----------
    spans : iterable of iterables of (onset, offset)
        Per source, the intervals (s) in which it is active; a source's own intervals
        that overlap count once, intervals with ``offset <= onset`` not at all.

    Returns
    -------
    int
        The maximum over time of the number of sources active, by a sweep over interval
        ends; an interval that ends where another starts does not overlap it (ends are
        taken before starts at the same time).
    """
    edges: list[tuple[float, int]] = []
    for src in spans:
        merged: list[list[float]] = []
        for a, b in sorted((float(a), float(b)) for a, b in src):
            if b <= a:
                continue
            if merged and a < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        edges += [(a, 1) for a, _ in merged] + [(b, -1) for _, b in merged]
    best = cur = 0
    for _, d in sorted(edges):  # -1 sorts before +1 at the same time: touching ends
        cur += d
        best = max(best, cur)
    return best


def overlap_count(rec: Mapping, cfg: DspConfig = DspConfig()) -> int:
    """The most of the sources :func:`source_count` counts that are active at once, from
    their events' onsets and offsets."""
    return _at_once(_sources(rec, cfg))


def _at_once(srcs: list[dict]) -> int:
    return max_overlap([(e["onset_s"], e["offset_s"]) for e in s["events"]] for s in srcs)


def _iou(a: Sequence[float], b: Sequence[float]) -> float:
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union > 0 else 0.0


def _pick(scores: dict[str, float]) -> tuple[str, list[str]]:
    """The letter with the lowest score; a tie goes to the first tied letter."""
    best = min(scores.values())
    tied = sorted(k for k, v in scores.items() if v <= best + 1e-9)
    return tied[0], tied


def dsp_answer(question: str, options: Mapping[str, str], rec: Mapping | None, *,
               stage: int, cfg: DspConfig = DspConfig()) -> tuple[str | None, dict]:
    """One pair's dsp answer and what it rests on.

    Parameters
    ----------
    question : str
    options : mapping
        Letter -> option text.
    rec : mapping or None
        The clip's analysis record (``foakit.corpus.load_clips``); None or a failed record
        when the audio could not be analysed.
    stage : int
    cfg : DspConfig

    Returns
    -------
    letter : str or None
        None when dsp abstains (the signal decides nothing).
    info : dict
        ``rule`` (count, direction, onset, span, sound_count or none), ``abstained``,
        ``scores`` (per letter, lower is better), ``tied`` letters, and the analysed
        values used.  A count rule also says ``count_kind``: ``"distinct"`` (options held
        against ``n_sources``, the number of sources) or ``"overlap"`` (against
        ``n_overlap``, the most of them active at once), from the question alone.
    """
    dur = rec.get("duration_s") if rec else None
    claims: dict[str, Claim] = {k: read_claim(v, duration_s=dur) for k, v in options.items()}
    info: dict[str, Any] = {"abstained": True, "rule": "none"}
    if rec is None or rec.get("status") != "ok":
        info["why"] = "no analysis of the audio" + (f" ({rec.get('error')})" if rec else "")
        return None, info
    srcs = _sources(rec, cfg)
    events = [e for s in srcs for e in s["events"]]
    scores: dict[str, float] = {}
    k = len(options)
    if stage == 2 and sum(c.count is not None for c in claims.values()) == k:
        kind = count_kind(question)
        n = len(srcs)
        if kind == "overlap":
            n_at_once = _at_once(srcs)
            info.update(rule="count", count_kind=kind, n_sources=n, n_overlap=n_at_once)
            n = n_at_once
        else:
            info.update(rule="count", count_kind=kind, n_sources=n)
        scores = {x: abs(c.count - n) for x, c in claims.items()}
    elif stage == 2 and sum(c.azimuth_deg is not None for c in claims.values()) >= k - 1 \
            and srcs:
        az = [s["azimuth_deg"] for s in srcs]
        for x, c in claims.items():
            scores[x] = 360.0 if c.azimuth_deg is None else \
                float(min(abs(azimuth_difference(c.azimuth_deg, a)) for a in az))
        info.update(rule="direction", source_azimuths_deg=[round(a, 1) for a in az])
    elif stage == 2 and events and sum(c.span is not None or c.onset_s is not None
                                       for c in claims.values()) >= k - 1:
        onsets = onset_question(question) or all(c.span is None for c in claims.values())
        for x, c in claims.items():
            if onsets:
                t = c.onset_s if c.onset_s is not None else (c.span[0] if c.span else None)
                scores[x] = 99.0 if t is None else min(abs(t - e["onset_s"]) for e in events)
            else:
                span = c.span if c.span is not None else (
                    (c.onset_s, c.onset_s + 1.0) if c.onset_s is not None else None)
                scores[x] = 1.0 if span is None else \
                    1.0 - max(_iou(span, (e["onset_s"], e["offset_s"])) for e in events)
        info.update(rule="onset" if onsets else "span",
                    events=[[round(e["onset_s"], 2), round(e["offset_s"], 2)] for e in events])
    elif stage == 1 and len({c.n_listed for c in claims.values()}) > 1:
        n = len(srcs)
        scores = {x: abs(c.n_listed - n) for x, c in claims.items()}
        info.update(rule="sound_count", n_sources=n)
    if not scores:
        info["why"] = "no option states a count, direction or time the signal can check"
        return None, info
    letter, tied = _pick(scores)
    info.update(abstained=False, scores={x: round(float(v), 3) for x, v in scores.items()},
                tied=tied)
    if len(tied) > 1:
        info["tie_break"] = "first letter"
    return letter, info


def analyze_for_qa(qa: QASet, analysis_dir: str | os.PathLike | None, *,
                   channel_order: str = "ambix", workers: int | None = None,
                   progress: bool = False, dask: Any = None, normalisation: str | None = None
                   ) -> tuple[dict[str, dict | None], list[str]]:
    """Analyse (or reuse the analysis of) every readable audio file the QA set names
    (``channel_order`` and ``normalisation`` as :func:`foakit.corpus.analyze_corpus`).

    Returns
    -------
    records : dict
        ``audio_path`` -> analysis record, or None for audio that is missing or broken.
    problems : list of str
        One line per audio file that could not be analysed.
    """
    from ... import corpus

    ok, bad = check_audio(qa)
    problems = list(bad.values())
    todo = {name: analysis_key(name) for name in ok}
    records: dict[str, dict | None] = dict.fromkeys(bad)
    with ExitStack() as stack:
        if analysis_dir is None:
            analysis_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="rmsaqa-"))
        have = corpus.load_clips(analysis_dir) \
            if Path(analysis_dir, corpus.CLIPS_FILE).is_file() else {}
        if any(k not in have for k in todo.values()):
            corpus.analyze_corpus(qa.audio_root, analysis_dir, channel_order=channel_order,
                                  normalisation=normalisation, workers=workers, progress=progress,
                                  files=sorted(set(todo.values())), dask=dask)
            have = corpus.load_clips(analysis_dir)
    for name, key in todo.items():
        rec = have.get(key)
        records[name] = rec
        if rec is None or rec.get("status") != "ok":
            records[name] = None
            problems.append(f"{name}: " + (str(rec.get("error")) if rec else
                                           "the analysis produced no record"))
    return records, problems


def dsp_answers(qa: QASet, records: Mapping[str, Mapping | None], *,
                cfg: DspConfig = DspConfig()) -> list[dict]:
    """dsp answer rows from analysis records (``audio_path`` -> record or None).

    Reads each item's questions, options and analysis record, never its answers; a null
    answer is an abstention.
    """
    rows = []
    for it in qa:
        rec = records.get(it.audio_path)
        a1, i1 = dsp_answer(it.stage1.question, it.stage1.options, rec, stage=1, cfg=cfg)
        a2, i2 = dsp_answer(it.stage2.question, it.stage2.options, rec, stage=2, cfg=cfg)
        rows.append(_row(it, a1, a2, {"kind": "dsp", "reads_labels": False,
                                      "config": cfg.to_dict(),
                                      "audio_path": it.audio_path, "stage1": i1,
                                      "stage2": i2, "abstained": i1["abstained"] and
                                      i2["abstained"]}))
    return rows


def run_baseline(qa: QASet, kind: str, *, seed: int = 0,
                 analysis_dir: str | os.PathLike | None = None, channel_order: str = "ambix",
                 workers: int | None = None, progress: bool = False,
                 cfg: DspConfig = DspConfig(), dask: Any = None,
                 normalisation: str | None = None) -> BaselineRun:
    """Answer every two-stage item of ``qa`` with baseline ``kind`` (see the module
    docstring); dsp analyses the audio (into ``analysis_dir``, reused when it holds the
    clips already)."""
    if kind not in KINDS:
        raise ParameterError(f"kind={kind!r} must be one of {KINDS}")
    if kind in LABELLED and not qa.labels:
        raise ParameterError(f"kind={kind!r} reads the labels; {qa.path} was loaded with "
                             "labels=False")
    problems = [str(p) for p in qa.problems]
    if kind == "oracle":
        rows = oracle_answers(qa)
    elif kind == "chance":
        rows = chance_answers(qa, seed=seed)
    elif kind == "prior":
        rows = prior_answers(qa)
    else:
        records, bad = analyze_for_qa(qa, analysis_dir, channel_order=channel_order,
                                      workers=workers, progress=progress, dask=dask,
                                      normalisation=normalisation)
        problems += bad
        rows = dsp_answers(qa, records, cfg=cfg)
    return BaselineRun(rows=rows, problems=problems)
