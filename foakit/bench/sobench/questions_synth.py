"""SO-Bench style question-answer items about a synthetic scene (with exact truth).

Every question is ``PREAMBLE + " " + core + " " + ENDING`` where the preamble is one of
:data:`PREAMBLES`, the core one of :data:`TEMPLATES` ``[task]`` and the ending
:data:`ENDINGS` ``[task]`` (``detect_time`` adds the SO-Bench README example's middle sentence
:data:`DETECT_TIME_CONTEXT` before its ending).  Sources are named in three ways:

* by class: ``"the sound of the {label}"``;
* by order: ``"the first sound"`` (earliest onset, 0.5 s before any other) or
  ``"the last sound"`` (latest onset, 0.5 s after any other, and the last to end);
* by location: ``"the sound coming from {where}"`` with ``where`` one of the sector phrases
  of :data:`SECTOR_PHRASES` (``"the front"``, ``"the front-left"``, ``"your left"``,
  ``"behind"``, ...) or ``"about {az} degrees azimuth"``.

Moving sources are asked about only in ``classify_motion``, ``detect_time`` and
``count_sources``; they still block location phrases their path passes through.

This is the ``"house"`` style.  The ``"varied"`` style (``make_qa_items(...,
wording="varied")``) words the same facts as other benchmark authors write: other preambles
(:data:`VARIED_PREAMBLES`) and endings (:data:`VARIED_ENDINGS`); sources named by class with
a descriptive word or in the possessive (``"the barking dog"``, ``"the dog's barking"``;
:data:`LABEL_WORDS`), by location (:data:`SECTOR_WORDS`, a clock position, ``"about 40
degrees to your left"`` or, for the one source well above every other, ``"above you"``) or by
order (``"the earliest sound"``); answers name the class (``"The barking dog starts at 3.1
s."``).  Both styles are one builder: which source, pair or window a task asks about is
chosen by shared code (:class:`Style` holds only the words), so a phrasing added to a style
serves the tests, the demo and the benchmarks alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import ParameterError
from ...synth.scene import Scene
from .questions_build import _BUILDERS, _V_BUILDERS
from .questions_scene import Item, _Ctx, sector_of
from .questions_words import (
    DETECT_TIME_CONTEXT,
    ENDINGS,
    GENERATED_TASKS,
    LABEL_WORDS,
    MOTION_ANSWERS,
    PREAMBLES,
    SECTOR_PHRASES,
    SECTOR_WORDS,
    SECTORS,
    TASK_ANSWER_FORMAT,
    TASK_QUESTION_CLASS,
    TEMPLATES,
    VARIED_ENDINGS,
    VARIED_PREAMBLES,
)

__all__ = [
    "GENERATED_TASKS",
    "TASK_QUESTION_CLASS",
    "TASK_ANSWER_FORMAT",
    "PREAMBLES",
    "TEMPLATES",
    "ENDINGS",
    "DETECT_TIME_CONTEXT",
    "SECTORS",
    "SECTOR_PHRASES",
    "MOTION_ANSWERS",
    "sector_of",
    "check_tasks",
    "make_qa_items",
    "WORDINGS",
    "check_wording",
    "Style",
    "STYLES",
    "VARIED_PREAMBLES",
    "VARIED_ENDINGS",
    "SECTOR_WORDS",
    "LABEL_WORDS",
]


@dataclass(frozen=True)
class Style:
    """The words of one question style: preambles, task endings and, per task, the
    function that writes an item (``(core, answer, canonical, meta, source_refs)`` or None)
    from the scene context."""

    preambles: tuple[str, ...]
    endings: dict[str, str]
    builders: dict[str, Callable[[_Ctx], Item | None]]


#: The question styles: ``"house"`` (:data:`TEMPLATES`, :data:`PREAMBLES`, :data:`ENDINGS`)
#: and ``"varied"`` (:data:`VARIED_PREAMBLES`, :data:`VARIED_ENDINGS`, other templates).
STYLES = {"house": Style(PREAMBLES, ENDINGS, _BUILDERS),
          "varied": Style(VARIED_PREAMBLES, VARIED_ENDINGS, _V_BUILDERS)}
WORDINGS = tuple(STYLES)


def check_wording(wording: str) -> str:
    """``wording`` validated."""
    if wording not in WORDINGS:
        raise ParameterError(f"{wording=!r} is not one of {WORDINGS}")
    return wording


def check_tasks(tasks: Sequence[str] | None) -> tuple[str, ...]:
    """``tasks`` validated (None = all of :data:`GENERATED_TASKS`)."""
    if tasks is None:
        return GENERATED_TASKS
    if isinstance(tasks, str):
        tasks = (tasks,)
    bad = [t for t in tasks if t not in GENERATED_TASKS]
    if bad:
        raise ParameterError(f"tasks={list(tasks)!r}: unknown {bad}; known: {GENERATED_TASKS}")
    return tuple(tasks)


def make_qa_items(
    scene: Scene,
    rng: np.random.Generator,
    *,
    tasks: Sequence[str] | None = None,
    wording: str = "house",
) -> list[dict[str, Any]]:
    """At most one QA item per task that the scene supports.

    Parameters
    ----------
    scene : Scene
        The truth.
    rng : numpy.random.Generator
        Chooses sources, templates and phrasing.
    tasks : sequence of str or None
        Subset of :data:`GENERATED_TASKS` (None = all).
    wording : {"house", "varied"}
        The question wording (:data:`WORDINGS`); the truth is the same either way.

    Returns
    -------
    list of dict
        Keys ``task_name``, ``question_class``, ``answer_format``, ``question``, ``answer``,
        ``canonical_answer``, ``answer_meta`` and ``source_refs`` (indices into
        ``scene.sources`` the item is about).
    """
    style = STYLES[check_wording(wording)]
    builders, preambles, endings = style.builders, style.preambles, style.endings
    ctx = _Ctx(scene, rng)
    items = []
    for task in check_tasks(tasks):
        built = builders[task](ctx)
        if built is None:
            continue
        core, answer, canonical, meta, refs = built
        question = f"{ctx.pick(preambles)} {core} {endings[task]}"
        items.append({
            "task_name": task,
            "question_class": TASK_QUESTION_CLASS[task],
            "answer_format": TASK_ANSWER_FORMAT[task],
            "question": question,
            "answer": answer,
            "canonical_answer": canonical,
            "answer_meta": meta,
            "source_refs": [int(r) for r in refs],
        })
    return items
