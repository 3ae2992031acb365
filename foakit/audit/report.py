"""Write an audit to a folder: flags, verdicts, summary, figures and an index page.

``DIR/flags.jsonl``
    One line per **suspicious** label: ``qa_id`` (SO-Bench) or ``audio_id`` + ``class`` +
    ``source`` + ``frames`` (STARSS), ``field``, ``label``, ``estimate``, ``confidence``,
    ``reason``, plus ``audio_id`` / ``task_name`` and the ``evidence`` numbers.  Most
    confident first.
``DIR/verdicts.jsonl``
    Every audited label with its verdict (consistent, suspicious, unverifiable + why).
``DIR/summary.json``
    Counts by verdict and field, the ``"convention"`` block (``declared``, ``best``,
    ``mismatch``, ``candidates``), metrics (STARSS), files that failed.
``DIR/figures/``
    One figure per flagged label (or the ``max_figures`` most confident) and the corpus
    figures (error rose, error against diffuseness).
``DIR/index.md``
    A page linking all of it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from ..conventions import CONVENTIONS
from ..files import write_atomic
from .verdicts import AuditResult, LabelVerdict, jsonable

__all__ = ["write_report", "flag_record", "FLAGS_FILE", "VERDICTS_FILE", "SUMMARY_FILE",
           "INDEX_FILE"]

FLAGS_FILE = "flags.jsonl"
VERDICTS_FILE = "verdicts.jsonl"
SUMMARY_FILE = "summary.json"
INDEX_FILE = "index.md"


def flag_record(v: LabelVerdict, *, figure: str | None = None) -> dict:
    """The flags.jsonl line of a verdict."""
    d = v.to_dict()
    if figure:
        d["figure"] = figure
    return d


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name))[:120]


def write_report(
    result: AuditResult, out_dir: str | os.PathLike, *, figures: bool = True,
    max_figures: int | None = None,
) -> dict[str, Path]:
    """Write the files of an audit (see the module docstring).

    Parameters
    ----------
    result : AuditResult
    out_dir : str or PathLike
        Created if needed; files there are replaced.
    figures : bool
        Draw figures (matplotlib, Agg).
    max_figures : int, optional
        Per-item figures for at most this many flags (the most confident); None = all.

    Returns
    -------
    dict
        ``"flags"``, ``"verdicts"``, ``"summary"``, ``"index"`` -> paths written.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    order = result.summary.get("channel_order", "ambix")
    indexed = list(enumerate(result.verdicts))
    flagged = sorted([(i, v) for i, v in indexed if v.verdict == "suspicious"],
                     key=lambda iv: -iv[1].confidence)
    fig_of: dict[int, str] = {}
    corpus_figs: list[str] = []
    if figures:
        from .plots import plot_error_rose, plot_error_vs_diffuseness, plot_item

        for i, v in (flagged if max_figures is None else flagged[:max_figures]):
            draw = result.draw.get(i, {})
            aid = v.key.get("audio_id") or draw.get("audio_id")
            ident = v.key.get("qa_id") or f"{aid}_c{v.key.get('class')}_s{v.key.get('source')}"
            rel = f"figures/{_safe(ident)}_{v.field}.png"
            try:
                plot_item(v, draw, result.clips.get(aid), out / rel, channel_order=order,
                          normalisation=result.summary.get("normalisation"))
                fig_of[i] = rel
            except Exception:  # a figure must never sink the report
                continue
        for name, fn in (("figures/error_rose.png", plot_error_rose),
                         ("figures/error_vs_diffuseness.png", plot_error_vs_diffuseness)):
            try:
                fn(result, out / name)
                corpus_figs.append(name)
            except Exception:
                continue
    flags_text = "".join(json.dumps(jsonable(flag_record(v, figure=fig_of.get(i))),
                                    allow_nan=False) + "\n" for i, v in flagged)
    write_atomic(out / FLAGS_FILE, [flags_text])
    verdict_text = "".join(json.dumps(jsonable(v.to_dict()), allow_nan=False) + "\n"
                           for v in result.verdicts)
    write_atomic(out / VERDICTS_FILE, [verdict_text])
    summary = dict(result.summary)
    summary["failures"] = [{"path": p, "error": e} for p, e in result.failures]
    summary["conventions"] = CONVENTIONS
    summary["files"] = {"flags": FLAGS_FILE, "verdicts": VERDICTS_FILE, "index": INDEX_FILE,
                        "figures": corpus_figs + sorted(fig_of.values())}
    write_atomic(out / SUMMARY_FILE, [json.dumps(jsonable(summary), indent=2,
                                                 allow_nan=False)])
    write_atomic(out / INDEX_FILE, [_index(result, summary, flagged, fig_of, corpus_figs)])
    return {"flags": out / FLAGS_FILE, "verdicts": out / VERDICTS_FILE,
            "summary": out / SUMMARY_FILE, "index": out / INDEX_FILE}


def _fmt(x) -> str:
    if isinstance(x, float):
        return f"{x:.1f}"
    if isinstance(x, list | tuple):
        return "[" + ", ".join(_fmt(v) for v in x) + "]"
    if isinstance(x, dict):
        return ", ".join(f"{k.split('_')[0]} {_fmt(v)}" for k, v in x.items())
    return "" if x is None else str(x)


def _index(result: AuditResult, summary: dict, flagged: list, fig_of: dict,
           corpus_figs: list[str]) -> str:
    c = summary.get("counts", {})
    conv = summary.get("convention", {})
    lines = [f"# foakit label audit ({result.kind})", ""]
    src = summary.get("root") or summary.get("metadata_dir")
    lines += [f"Corpus: `{src}`, declared channel order `{summary.get('channel_order')}`"
              + (f", normalisation `{summary['normalisation']}`"
                 if summary.get("normalisation") else "") + ".", ""]
    lines += ["## Verdicts", "", "| field | consistent | suspicious | unverifiable |",
              "|---|---:|---:|---:|"]
    for f, d in sorted(c.get("by_field", {}).items()):
        lines.append(f"| {f} | {d['consistent']} | {d['suspicious']} | {d['unverifiable']} |")
    bv = c.get("by_verdict", {})
    lines.append(f"| **all** | {bv.get('consistent', 0)} | {bv.get('suspicious', 0)} | "
                 f"{bv.get('unverifiable', 0)} |")
    lines += ["", "## Convention", ""]
    lines.append(f"Best hypothesis: **{conv.get('best')}**; mismatch: "
                 f"**{str(conv.get('mismatch')).lower()}**.  {conv.get('evidence', '')}")
    lines += ["", "| hypothesis | agreement | labels | clips where best |", "|---|---:|---:|---:|"]
    for name, d in conv.get("candidates", {}).items():
        lines.append(f"| {name} | {d.get('agreement', 0):.2f} | {d.get('n_pairs')} | "
                     f"{d.get('clips_best')} |")
    if (nv := conv.get("normalisation")) is not None:
        lines += ["", f"Normalisation: the signal supports **{nv.get('supported')}**; mismatch: "
                  f"**{str(nv.get('mismatch')).lower()}**.  {nv.get('evidence', '')}"]
    if "metrics" in summary:
        m = summary["metrics"].get("corpus", {})
        lines += ["", "## DCASE-style metrics (class-agnostic)", "",
                  f"F(20 deg) = {_fmt(m.get('F20'))}, LE = {_fmt(m.get('LE_deg'))} deg, "
                  f"LR = {_fmt(m.get('LR'))}"]
    if corpus_figs:
        lines += ["", "## Corpus figures", ""]
        lines += [f"![{Path(f).stem}]({f})" for f in corpus_figs]
    lines += ["", f"## Flags ({len(flagged)}, most confident first)", "",
              "| item | field | label | estimate | confidence | reason | figure |",
              "|---|---|---|---|---:|---|---|"]
    for i, v in flagged:
        ident = v.key.get("qa_id") or (f"{v.key.get('audio_id')} class {v.key.get('class')} "
                                       f"source {v.key.get('source')}")
        fig = f"[png]({fig_of[i]})" if i in fig_of else ""
        reason = v.reason.replace("|", "/")
        lines.append(f"| `{ident}` | {v.field} | {_fmt(v.label)} | {_fmt(v.estimate)} | "
                     f"{v.confidence:.2f} | {reason} | {fig} |")
    if result.failures:
        lines += ["", f"## Files that failed ({len(result.failures)})", ""]
        lines += [f"- `{p}`: {e}" for p, e in result.failures[:200]]
    lines += ["", f"All verdicts: [{VERDICTS_FILE}]({VERDICTS_FILE}); flags: "
              f"[{FLAGS_FILE}]({FLAGS_FILE}); summary: [{SUMMARY_FILE}]({SUMMARY_FILE}).", ""]
    return "\n".join(lines)
