"""The convention audit: which convention hypothesis do the labels support, over the corpus?

Each benchmark audit scores every hypothesis of :mod:`foakit.audit.common` (the angle maps
applied to the labels, and the other channel order applied to the signal by decoding it
again) with the same measure: the fraction of labels (or labelled windows) that some DOA
estimate confirms within a tolerance.  :func:`decide` turns those scores into the
``"convention"`` block of ``summary.json``.

Decision rule
-------------
``best`` is the candidate with the highest agreement.  It is named a mismatch only when it
is not ``declared``, beats ``declared`` by at least ``min_gain`` (absolute) and by the factor
``min_ratio``, rests on at least ``min_pairs`` labels, and is the best candidate in more clips
than ``declared`` is.  The re-decoding candidate is compared with ``declared`` on the same
clips (it is run on a subset of the corpus).  Otherwise ``best`` is ``declared``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = ["CandidateScore", "DESCRIPTIONS", "decide"]

#: One line per hypothesis, for reports.
DESCRIPTIONS = {
    "declared": "labels and channel order as declared",
    "mirror_azimuth": "azimuth labels mirrored (az -> -az: clockwise written as "
                      "counter-clockwise, left and right exchanged)",
    "front_back": "front and back exchanged in the labels (az -> 180 - az)",
    "yx_swap": "x and y exchanged (az -> 90 - az), e.g. ACN channels named x, y, z",
    "elevation_sign": "elevation sign flipped in the labels (el -> -el)",
    "fuma_as_ambix": "files are FuMa (W, X, Y, Z; W at -3 dB) but read as ambiX "
                     "(tested by decoding the audio as FuMa)",
    "ambix_as_fuma": "files are ambiX (W, Y, Z, X) but read as FuMa "
                     "(tested by decoding the audio as ambiX)",
}


@dataclass
class CandidateScore:
    """How well one hypothesis explains the labels.

    Attributes
    ----------
    name : str
    agreement : float
        Fraction of the scored labels that a DOA estimate confirms within tolerance.
    median_error_deg : float or None
        Median angular error between labels and their matched estimates.
    n_pairs : int
        Labels (or labelled windows) scored.
    n_clips : int
        Clips scored.
    clips_best : int
        Clips where this candidate has the highest agreement (ties go to ``declared``).
    declared_agreement_same_clips : float or None
        For the re-decoding candidate (scored on a subset): ``declared``'s agreement on the
        same clips.
    """

    name: str
    agreement: float
    median_error_deg: float | None
    n_pairs: int
    n_clips: int
    clips_best: int = 0
    declared_agreement_same_clips: float | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("name")
        for k in ("agreement", "median_error_deg", "declared_agreement_same_clips"):
            if d[k] is not None:
                d[k] = round(float(d[k]), 4)
        d["description"] = DESCRIPTIONS.get(self.name, "")
        return d


def decide(
    declared_order: str,
    scores: dict[str, CandidateScore],
    *,
    min_gain: float = 0.15,
    min_ratio: float = 1.3,
    min_pairs: int = 8,
) -> dict:
    """The ``"convention"`` block of ``summary.json`` from the candidates' scores.

    Parameters
    ----------
    declared_order : str
        The channel order the corpus was read as.
    scores : dict
        Candidate name -> :class:`CandidateScore`; must hold ``"declared"``.
    min_gain, min_ratio, min_pairs : float, float, int
        See the module docstring.

    Returns
    -------
    dict
        ``declared`` (channel order and angle convention), ``best`` (a candidate name),
        ``mismatch`` (bool), ``candidates`` (name -> scores), ``evidence`` (one sentence).
    """
    base = scores.get("declared")
    block = {
        "declared": {"channel_order": declared_order,
                     "angles": "azimuth CCW from the front (+90 = left), elevation up"},
        "best": "declared",
        "mismatch": False,
        "candidates": {k: v.to_dict() for k, v in scores.items()},
        "evidence": "",
    }
    if base is None or base.n_pairs == 0:
        block["evidence"] = "no label could be compared with a DOA estimate"
        block["best"] = None
        return block
    ranked = sorted(scores.values(), key=lambda s: (-s.agreement, s.name != "declared"))
    best = ranked[0]
    ref_agree = (best.declared_agreement_same_clips
                 if best.declared_agreement_same_clips is not None else base.agreement)
    gain = best.agreement - ref_agree
    ok = (best.name != "declared" and best.n_pairs >= min_pairs and gain >= min_gain
          and best.agreement >= min_ratio * max(ref_agree, 1e-9)
          and best.clips_best > base.clips_best)
    if ok:
        block["best"] = best.name
        block["mismatch"] = True
        block["evidence"] = (
            f"{best.name}: {best.agreement:.0%} of {best.n_pairs} labels agree with the "
            f"signal against {ref_agree:.0%} as declared; best hypothesis in "
            f"{best.clips_best} of {best.n_clips} clips ({DESCRIPTIONS.get(best.name, '')})")
    else:
        runner = next((s for s in ranked if s.name != "declared"), None)
        block["evidence"] = (
            f"declared convention: {base.agreement:.0%} of {base.n_pairs} labels agree with "
            f"the signal" + (f"; the next hypothesis ({runner.name}) {runner.agreement:.0%}"
                             if runner is not None else ""))
    return block

