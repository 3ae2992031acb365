"""The RMS-AQA demo: a small synthetic corpus and its per-category baseline table."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .baselines import analyze_for_qa, chance_answers, dsp_answers, oracle_answers, prior_answers
from .format import load_qa
from .scoring import format_comparison, score_answers
from .synth import write_rmsaqa_corpus

__all__ = ["DEMO_CLIPS", "DEMO_SEED", "demo_reports", "demo_table"]

#: Size and seed of the demo corpus (the seed is none of the dsp tuning seeds).
DEMO_CLIPS = 60
DEMO_SEED = 5


def demo_reports(root: str | os.PathLike, *, n_clips: int = DEMO_CLIPS, seed: int = DEMO_SEED,
                 workers: int | None = None) -> dict[str, dict]:
    """Write the demo corpus under ``root`` (reused when present), analyse it, and score
    oracle, chance (seed 0), prior and dsp answers.

    Returns
    -------
    dict
        Baseline name -> :func:`~foakit.bench.rmsaqa.scoring.score_answers` report.
    """
    rootp = Path(root)
    qa_file = rootp / "val.json"
    if not qa_file.is_file():
        write_rmsaqa_corpus(rootp, n_clips=n_clips, seed=seed)
    qa = load_qa(qa_file)
    records, _ = analyze_for_qa(qa, rootp / "analysis", workers=workers)
    return {"oracle": score_answers(qa, oracle_answers(qa)),
            "chance": score_answers(qa, chance_answers(qa, seed=0)),
            "prior": score_answers(qa, prior_answers(qa)),
            "dsp": score_answers(qa, dsp_answers(qa, records))}


def demo_table(root: str | os.PathLike | None = None, *, n_clips: int = DEMO_CLIPS,
               seed: int = DEMO_SEED, workers: int | None = None) -> str:
    """The per-category A_S1 / A_S2 / A_GS2 table of oracle, chance, prior and dsp on the
    demo corpus (made in a temporary folder when ``root`` is None), as text."""
    if root is None:
        with tempfile.TemporaryDirectory(prefix="foakit-rmsaqa-demo-") as tmp:
            return demo_table(tmp, n_clips=n_clips, seed=seed, workers=workers)
    reports = demo_reports(root, n_clips=n_clips, seed=seed, workers=workers)
    n = reports["oracle"]["overall"]["n"]
    head = (f"RMS-AQA demo: {n} two-stage items on {n_clips} synthetic clips (seed {seed}; "
            "10 s, 24 kHz FOA, 1-4 sources, rooms); percent")
    return head + "\n" + format_comparison(reports)
