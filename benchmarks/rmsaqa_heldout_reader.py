"""RMS-AQA dsp on options worded as nobody tuned on: the reader's held-out measurement.

:func:`reword` copies a corpus written by :func:`foakit.bench.rmsaqa.write_rmsaqa_corpus`
and gives its Sound Counting, Temporal Detection and Source Localization pairs (and every
stage-1 pair) questions and options in the held-out wordings of
``tests/data/phrasings/rmsaqa_heldout_options.json``, keeping answer letters, categories
and audio.  Each option's value is taken from the house wording foakit's corpus writer
uses (:mod:`foakit.bench.rmsaqa.synth_qa`), read here by patterns of that wording alone,
not by the reader.  Those wordings were written before the reader and are never tuned on.
A Sound Counting pair is asked what its truth counts (``truth/items.jsonl``,
``count_kind``): an overlap pair one of the "Sound Counting (overlap)" questions, a
distinct pair one of the "Sound Counting" ones, and a count option form that speaks of one
kind of count only on pairs of that kind.

    python benchmarks/rmsaqa_heldout_reader.py --work DIR [--clips 40] [--single-clips 30]
        [--seed 701]

prints, for the house wording and the held-out wording of the same items, the prior and
dsp accuracy per category (Sound Counting also per count kind) and the share of options
with every cue read.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

import numpy as np

from foakit.bench.rmsaqa import (
    analyze_for_qa,
    dsp_answers,
    load_qa,
    prior_answers,
    score_answers,
    write_rmsaqa_corpus,
)
from foakit.bench.rmsaqa.claims import coverage
from foakit.bench.rmsaqa.synth_qa import _SECTORS, DOMESTIC

ROOT = Path(__file__).resolve().parents[1]
WORDINGS = json.loads((ROOT / "tests" / "data" / "phrasings" /
                       "rmsaqa_heldout_options.json").read_text(encoding="utf-8"))
_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
          "fourteen fifteen sixteen seventeen eighteen nineteen twenty").split()
_SECTOR_OF = {w.lower(): float(a) for a, ws in _SECTORS for w in ws}
_NUM = r"(\d+(?:\.\d+)?)"


def _house_value(cat: int, text: str):
    """The value one house-worded option states (count, azimuth or time)."""
    t = text.strip()
    if cat == 1:
        m = re.match(r"(\d+)", t)
        if m:
            return "count", int(m.group(1))
        return "count", _WORDS.index(t.split()[0].lower())
    if cat == 2:
        if t.lower() in _SECTOR_OF:
            return "sector", _SECTOR_OF[t.lower()]
        m = re.match(r"At about (\d+) o'clock", t)
        if m:
            return "clock", float((-30.0 * (int(m.group(1)) % 12) + 180.0) % 360.0 - 180.0)
        if t.startswith("Straight ahead"):
            return "angle", 0.0
        if t.startswith("Directly behind, at"):
            return "angle", 180.0
        m = re.match(r"About (\d+) degrees to the (left|right)", t)
        if m:
            v = float(m.group(1))
            return "angle", v if m.group(2) == "left" else -v
        raise ValueError(f"unknown house direction option {t!r}")
    m = re.match(rf"(?:From {_NUM} s to {_NUM} s|Between {_NUM} and {_NUM} seconds|"
                 rf"{_NUM}-{_NUM} s)$", t)
    if m:
        a, b = (float(x) for x in m.groups() if x is not None)
        return "span", (a, b)
    m = re.search(_NUM, t)
    return "onset", float(m.group(1))


def _name(question: str) -> str:
    names = [n for n in DOMESTIC.values() if n in question.lower()]
    return max(names, key=len) if names else "the sound"


def _fmt(x: float) -> str:
    return f"{x:.1f}"


def _count_forms(key: str, count_kind: str) -> list[str]:
    """The count forms of ``key`` that may be used on a pair of ``count_kind``."""
    return [f if isinstance(f, str) else f["form"] for f in WORDINGS[key]
            if isinstance(f, str) or f["kind"] == count_kind]


def _render(cat: int, kind: str, v, x: str, rng, dur: float,
            count_kind: str = "distinct") -> str:
    w = WORDINGS
    pick = lambda xs: xs[int(rng.integers(len(xs)))]  # noqa: E731
    if kind == "count":
        if v == 1 and rng.random() < 0.5:
            return pick(_count_forms("count_one", count_kind))
        if v == 2 and rng.random() < 0.5:
            return pick(_count_forms("count_two", count_kind))
        return pick(_count_forms("count", count_kind)).format(n=v, nw=_WORDS[v])
    if kind == "sector":
        key = str(int(v)) if v != -180 else "180"
        d = pick(w["sector"][key])
        return pick(w["direction_wrap"]).format(x=x, dir=d).strip()
    if kind == "clock":
        h = int(round(-v / 30.0)) % 12 or 12
        return pick(w["clock"]).format(h=h, hw=_WORDS[h])
    if kind == "angle":
        if v in (0.0, 180.0, -180.0):
            return pick(w["sector"]["0" if v == 0 else "180"])
        return pick(w["angle"]).format(deg=int(abs(v)), side="left" if v > 0 else "right")
    if kind == "onset":
        return pick(w["onset"]).format(x=x, t=_fmt(v), ti=int(round(v)))
    a, b = v
    edge = 0.8
    if a <= edge and b >= dur - edge:
        tpl = pick(w["span_all"])
    elif a <= edge:
        tpl = pick(w["span_from_start"])
    elif b >= dur - edge:
        tpl = pick(w["span_to_end"])
    else:
        tpl = pick(w["span"])
    bi = int(round(b))
    return tpl.format(x=x, a=_fmt(a), b=_fmt(b), ai=int(round(a)), bi=bi,
                      bw=_WORDS[bi] if bi < len(_WORDS) else str(bi))


def _hw():
    """benchmarks/heldout_wording.py, the SO-Bench held-out family's phrase tables."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("heldout_wording",
                                                  ROOT / "benchmarks" / "heldout_wording.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _render_other(cat: int, kind: str, v, x: str, rng, dur: float,
                  count_kind: str = "distinct") -> str:
    """The same values in the voice of benchmarks/heldout_wording.py (another author's
    answer phrasings, written without foakit's question templates or parser); an overlap
    pair's counts leave out its forms that speak of the sounds of the whole clip."""
    hw = _hw()
    pick = hw._pick
    if kind == "count":
        word = hw.NUMBER_WORDS[v] if 0 <= v < len(hw.NUMBER_WORDS) else str(v)
        if count_kind == "overlap":
            return pick(rng, [f"{v}.", f"I count {v}."] +
                        (["Just one.", "One source."] if v == 1 else []))
        return pick(rng, [f"{v}.", f"There are {word} sources." if v != 1 else "Just one.",
                          f"I count {v}.", f"{word.capitalize()} distinct sounds."
                          if v != 1 else "One source."])
    if kind in ("sector", "clock", "angle"):
        a = float(v)
        sec = hw.sector(a)
        side = "left" if a > 0 else "right"
        forms = [f"Coming from {pick(rng, hw.SECTOR_WORDS[sec])}.",
                 f"The sound is {pick(rng, hw.SECTOR_PLACES[sec])}."]
        if kind == "clock":
            forms = [f"At roughly {hw.clock(a)} o'clock.", f"About {hw.clock(a)} o'clock."]
        elif kind == "angle" and a not in (0.0, 180.0, -180.0):
            forms = [f"{round(abs(a))} degrees to the {side} (azimuth {round(a)}).",
                     f"Roughly {round(a)}°, {pick(rng, hw.SECTOR_PLACES[sec])}."]
        return pick(rng, forms)
    if kind == "onset":
        return pick(rng, [f"It starts at about {hw._secs(v, rng)}.",
                          f"Onset: {hw._secs(v, rng)}.", f"At {hw._secs(v, rng)}.",
                          f"Roughly {hw._num(v, rng)} seconds in."])
    a, b = v
    return pick(rng, [f"{hw._span(a, b, rng).capitalize()}.",
                      f"It is audible {hw._span(a, b, rng)}.",
                      f"You hear it {hw._span(a, b, rng)}.",
                      f"{hw._num(a, rng)} to {hw._num(b, rng)} s"])


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _list_text(option: str, rng) -> str:
    low = option.lower()
    names = sorted((low.find(n), n) for n in set(DOMESTIC.values()) if n in low)
    # a name inside a longer one ("a piano" in "a piano ...") is one sound
    kept = [n for i, n in names if not any(n != m and n in m for _, m in names)]
    if len(kept) == 1:
        body = kept[0]
    elif len(kept) == 2:
        body = f"{kept[0]} and {kept[1]}"
    else:
        body = ", ".join(kept[:-1]) + ", and " + kept[-1]
    tpl = WORDINGS["stage1"][int(rng.integers(len(WORDINGS["stage1"])))]
    return _cap(tpl.format(list=body))


def reword(src: Path, dst: Path, *, seed: int = 0, duration_s: float = 10.0,
           voice: str = "heldout") -> Path:
    """A copy of ``src``'s QA file with held-out wordings (labels and audio kept).

    ``voice``: ``"heldout"`` (tests/data/phrasings/rmsaqa_heldout_options.json) or
    ``"other"`` (benchmarks/heldout_wording.py's answer phrasings; questions and stage 1
    as for ``"heldout"``)."""
    rng = np.random.default_rng(seed)
    render = _render if voice == "heldout" else _render_other
    doc = json.loads((src / "val.json").read_text())
    kinds = count_kinds(src)
    for rec in doc["records"]:
        for pos, pair in enumerate(rec["qa_pairs"]):
            if pair["stage"] == 1:
                pair["options"] = {k: _list_text(v, rng) for k, v in pair["options"].items()}
                continue
            cat = pair.get("category_id")
            if cat not in (1, 2, 3):
                continue
            x = _name(pair["question"])
            ck = _kind(kinds, rec["segment_id"], pos // 2) if cat == 1 else "distinct"
            qs = WORDINGS["questions"][pair["category_name"] +
                                       (" (overlap)" if ck == "overlap" else "")]
            pair["question"] = qs[int(rng.integers(len(qs)))].format(x=x)
            pair["options"] = {
                k: _cap(render(cat, *_house_value(cat, v), x, rng, duration_s, ck))
                for k, v in pair["options"].items()}
    dst.mkdir(parents=True, exist_ok=True)
    out = dst / "val.json"
    doc_audio = src / "audio"
    if not (dst / "audio").exists():
        (dst / "audio").symlink_to(doc_audio.resolve())
    out.write_text(json.dumps(doc, indent=1))
    return out


def count_kinds(root: Path) -> dict[tuple[str, int], str]:
    """(segment id, item) -> count kind of each Sound Counting item of a corpus written by
    :func:`foakit.bench.rmsaqa.write_rmsaqa_corpus`, from its truth file."""
    out = {}
    for line in (root / "truth" / "items.jsonl").read_text().splitlines():
        t = json.loads(line)
        if "count_kind" in t["stage2"]:
            out[(t["segment_id"], t["item"])] = t["stage2"]["count_kind"]
    return out


def _kind(kinds: dict[tuple[str, int], str], sid: str, item: int) -> str:
    try:
        return kinds[(sid, item)]
    except KeyError:
        raise SystemExit(f"{sid} item {item}: the corpus truth has no count_kind (a corpus "
                         "written before counting questions had two kinds; use a new "
                         "--work folder)") from None


def measure(qa_file: Path, records: dict, kinds: dict[tuple[str, int], str]) -> dict:
    qa = load_qa(qa_file)
    rows = {"prior": prior_answers(qa), "dsp": dsp_answers(qa, records)}
    reps = {k: score_answers(qa, r) for k, r in rows.items()}
    # Sound Counting stage 2 per count kind: (right, n) per baseline
    split: dict[str, dict[str, list[int]]] = {}
    for name, rs in rows.items():
        for it, r in zip(qa, rs, strict=True):
            if it.category == "Sound Counting":
                got = split.setdefault(_kind(kinds, it.segment_id, it.index), {}).setdefault(
                    name, [0, 0])
                got[0] += r["stage2"] == it.stage2.answer
                got[1] += 1
    cov2 = {c: coverage(t for it in qa if it.category == c
                        for t in it.stage2.options.values())
            for c in ("Sound Counting", "Temporal Detection", "Source Localization")}
    cov = coverage(t for it in qa for p in (it.stage1, it.stage2) for t in p.options.values())
    return {"reports": reps, "coverage": cov, "coverage_stage2": cov2,
            "sound_counting_by_kind": split}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/tmp/foakit-rmsaqa-heldout")
    ap.add_argument("--clips", type=int, default=40)
    ap.add_argument("--single-clips", type=int, default=30)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=701,
                    help="corpus seed of the multi-source clips (single-source: seed + 1)")
    args = ap.parse_args()
    work = Path(args.work)
    t0 = time.perf_counter()
    out = {}
    for name, kw in (("multi", dict(n_clips=args.clips, seed=args.seed,
                                    category_weights=(1, 0, 1, 0, 0, 0))),
                     ("single", dict(n_clips=args.single_clips, seed=args.seed + 1,
                                     n_sources=1,
                                     category_weights=(1, 2, 1, 0, 0, 0)))):
        root = work / name
        if not (root / "val.json").is_file():
            write_rmsaqa_corpus(root, **kw)
        qa = load_qa(root / "val.json")
        records, problems = analyze_for_qa(qa, root / "analysis", workers=args.workers)
        assert not problems, problems
        held = reword(root, work / f"{name}-heldout", seed=kw["seed"])
        other = reword(root, work / f"{name}-other", seed=kw["seed"], voice="other")
        kinds = count_kinds(root)
        for wording, f in (("house", root / "val.json"), ("heldout", held),
                           ("other", other)):
            m = measure(f, records, kinds)
            out[f"{name}/{wording}"] = m
            print(f"\n{name} clips ({kw}), {wording} wording, {f}:")
            for cat in ("Sound Counting", "Temporal Detection", "Source Localization"):
                b = {k: r["by_category"].get(cat) for k, r in m["reports"].items()}
                if b["dsp"] is None or not b["dsp"]["n"]:
                    continue
                print(f"  {cat}: n={b['dsp']['n']}  prior A_S2 {b['prior']['A_S2']:.1%}  "
                      f"dsp A_S2 {b['dsp']['A_S2']:.1%}  options fully read "
                      f"{m['coverage_stage2'][cat]['share']:.1%}")
                if cat == "Sound Counting":
                    for ck, got in sorted(m["sound_counting_by_kind"].items()):
                        (pr, n), (dr, _) = got["prior"], got["dsp"]
                        print(f"    {ck}: n={n}  prior A_S2 {pr / n:.1%}  dsp A_S2 "
                              f"{dr / n:.1%}")
            print(f"  all options (stage 1 and 2) with every cue read: "
                  f"{m['coverage']['fully_read']}/{m['coverage']['n']} "
                  f"({m['coverage']['share']:.1%}); dsp A_S1 "
                  f"{m['reports']['dsp']['overall']['A_S1']:.1%} (prior "
                  f"{m['reports']['prior']['overall']['A_S1']:.1%})")
    (work / "heldout_reader.json").write_text(json.dumps(
        {k: {"coverage": v["coverage"], "coverage_stage2": v["coverage_stage2"],
             "by_category": {n: r["by_category"] for n, r in v["reports"].items()},
             "sound_counting_by_kind": v["sound_counting_by_kind"]}
         for k, v in out.items()}, indent=1))
    print(f"\n{time.perf_counter() - t0:.0f} s; figures in {work / 'heldout_reader.json'}")


if __name__ == "__main__":
    main()
