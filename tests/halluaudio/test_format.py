"""HalluAudio parquet loading: layouts, configs merged per audio, broken rows, field names."""

import json
import os

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from foakit.bench.halluaudio import format as fmt
from foakit.bench.halluaudio.synth import write_corpus
from foakit.errors import AudioError, FormatError

from .rows import case, row, write_rows


@pytest.fixture(scope="module")
def corpus_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("ha")
    write_corpus(root, n_audio=14, seed=3, family="tune")
    return root


def test_layouts_load_the_same_cases(tmp_path):
    keys = {}
    for layout in ("folders", "files", "hf_cache"):
        root = tmp_path / layout
        write_corpus(root, n_audio=8, seed=5, layout=layout)
        c = fmt.load_corpus(root)
        assert not c.broken and not c.problems
        keys[layout] = sorted(k for k in c.case_index())
    assert keys["folders"] == keys["files"] == keys["hf_cache"]
    snap = next((tmp_path / "hf_cache" / "snapshots").iterdir())
    assert (snap / "multiple_choice" / "test-00000-of-00001.parquet").is_symlink()


def test_audio_in_both_configs_is_one_audio(corpus_root):
    c = fmt.load_corpus(corpus_root)
    truth = [json.loads(x) for x in (corpus_root / "synth_truth.jsonl").read_text().splitlines()]
    assert len(c.audios) == len(truth)
    both = [t for t in truth if len(t["configs"]) == 2]
    assert both
    for t in both:
        a = c.audios[t["audio_id"]]
        assert sorted(a.configs) == sorted(fmt.CONFIGS)
        assert {x.config for x in a.cases} == set(fmt.CONFIGS)


def test_rows_stream_without_audio(corpus_root):
    rows = list(fmt.iter_rows(corpus_root, audio=False))
    assert rows and all(r.audio is None for r in rows)
    with_audio = next(fmt.iter_rows(corpus_root))
    data, name = fmt.row_audio_bytes(corpus_root, with_audio.audio, audio_id="x")
    assert len(data) > 100 and name.startswith(with_audio.audio_id)


def test_broken_rows_are_reported_with_their_id_and_the_rest_loads(tmp_path):
    rows = [row("good", [case()]),
            row("bad_gt", [case()], gt="{not json"),
            row("bad_cases", "[{]"),
            row("cases_object", json.dumps({"prompt": "x"})),
            row("bad_options", [case(choice_options="{oops")]),
            {**row("", [case()]), "ground_truth": json.dumps({"level": "L2"})}]
    write_rows(tmp_path / "multiple_choice" / "a.parquet", rows)
    c = fmt.load_corpus(tmp_path)
    assert list(c.audios) == ["good"]
    broken = {b.audio_id: b.problem for b in c.broken}
    assert "ground_truth is not valid JSON" in broken["bad_gt"]
    assert "eval_cases is not valid JSON" in broken["bad_cases"]
    assert "expected a JSON array" in broken["cases_object"]
    assert "choice_options is not JSON" in broken["bad_options"]
    assert "no audio id" in broken[None]
    assert all(str(tmp_path) in b.line() for b in c.broken)


def test_unknown_fields_kept_and_missing_fields_reported(tmp_path):
    write_rows(tmp_path / "open_freeform" / "x.parquet",
               [row("a1", [{"prompt": "What was said?", "scoring": "llm_judge",
                            "speaker_hint": "female", "expected_result_class": "supported"}])])
    c = fmt.load_corpus(tmp_path)
    (cs,) = list(c.cases())
    assert cs.extra == {"speaker_hint": "female"}
    assert c.unknown_fields == {"open_freeform": ["speaker_hint"]}
    assert "forbidden_claims" in c.missing_fields and "prompt" not in c.missing_fields
    assert cs.case_id == "0" and cs.rule == "llm_judge" and not cs.closed


def test_field_forms(tmp_path):
    cases = [case(case_id=None, choice_options=["Yes", "No"]),
             case(case_id="k", choice_options=[{"key": "A", "text": "Yes"},
                                               {"key": "B", "text": "No"}], scoring=None),
             case(case_id="inc", expected_result=""),
             case(case_id="weird", scoring="bleu")]
    gt = {"level": "level 4", "speech_presence": "absent",
          "uncertain_spans": [[0.5, 1.0], {"start": 2, "end": 3}, "bad", [3, 1]]}
    write_rows(tmp_path / "data" / "multiple_choice-00000.parquet",
               [row("x", cases, level=None, gt=gt)])
    c = fmt.load_corpus(tmp_path)
    a = c.audios["x"]
    assert a.level == "L4"
    assert [x.case_id for x in a.cases] == ["0", "k", "inc", "weird"]
    assert a.cases[0].choice_options == {"A": "Yes", "B": "No"} == a.cases[1].choice_options
    assert a.cases[1].rule == "multiple_choice"
    assert not a.cases[2].complete and a.cases[3].rule is None
    assert fmt.speech_presence(a.ground_truth) is False
    assert fmt.uncertain_spans(a.ground_truth) == [(0.5, 1.0), (2.0, 3.0)]


def test_flat_row_is_one_case(tmp_path):
    schema = pa.schema([("audio_id", pa.string()), ("prompt", pa.string()),
                        ("expected_result", pa.string()), ("level", pa.string())])
    write_rows(tmp_path / "multiple_choice" / "flat.parquet",
               [{"audio_id": "f1", "prompt": "A or B?", "expected_result": "B",
                 "level": "L6"}], schema)
    c = fmt.load_corpus(tmp_path)
    (cs,) = list(c.cases())
    assert cs.prompt == "A or B?" and cs.expected_result == "B" and cs.level == "L6"


def test_conflicting_labels_across_configs_reported(tmp_path):
    write_rows(tmp_path / "multiple_choice" / "a.parquet", [row("z", [case()], level="L1")])
    write_rows(tmp_path / "open_freeform" / "a.parquet",
               [row("z", [case(scoring="llm_judge")], level="L3")])
    c = fmt.load_corpus(tmp_path)
    assert len(c.audios) == 1 and len(c.audios["z"].cases) == 2
    assert any("differs from the same audio" in p for p in c.problems)


def test_root_errors(tmp_path):
    with pytest.raises(FormatError, match="not a folder"):
        fmt.load_corpus(tmp_path / "nope")
    with pytest.raises(FormatError, match="no parquet file"):
        fmt.load_corpus(tmp_path)
    (tmp_path / "multiple_choice").mkdir()
    (tmp_path / "multiple_choice" / "x.parquet").write_bytes(b"not parquet")
    with pytest.raises(FormatError, match="not a readable parquet"):
        fmt.load_corpus(tmp_path)


def test_audio_path_fallback_resolves_under_root(tmp_path):
    real = tmp_path / "elsewhere"
    real.mkdir()
    (real / "a.wav").write_bytes(b"RIFFdata")
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(real, root / "audio")  # a symlinked audio folder is followed
    data, name = fmt.row_audio_bytes(root, {"bytes": None, "path": "audio/a.wav"},
                                     audio_id="a")
    assert data == b"RIFFdata" and name == str((real / "a.wav").resolve())
    with pytest.raises(FormatError, match="escape"):
        fmt.row_audio_bytes(root, {"bytes": None, "path": "../elsewhere/a.wav"}, audio_id="a")
    with pytest.raises(AudioError, match="not readable"):
        fmt.row_audio_bytes(root, {"bytes": None, "path": "audio/missing.wav"}, audio_id="a")
    with pytest.raises(AudioError, match="neither bytes nor path"):
        fmt.row_audio_bytes(root, {"bytes": None, "path": None}, audio_id="a")


@given(st.dictionaries(st.sampled_from(sum(fmt.CASE_FIELDS.values(), ()) + ("zz", "x")),
                       st.one_of(st.none(), st.text(max_size=8), st.integers(),
                                 st.lists(st.text(max_size=4), max_size=3),
                                 st.dictionaries(st.text(max_size=2), st.text(max_size=3),
                                                 max_size=3)), max_size=8))
def test_parse_case_never_fails_other_than_valueerror(obj):
    try:
        c = fmt.parse_case(obj, audio_id="a", config="multiple_choice", index=0, level="L1")
    except ValueError:
        return
    assert c.key == ("a", "multiple_choice", c.case_id)
    assert set(c.extra) <= set(obj)


@given(st.one_of(st.none(), st.booleans(), st.text(max_size=12), st.integers(),
                 st.dictionaries(st.sampled_from(["value", "label"]), st.text(max_size=6))))
def test_speech_presence_total(v):
    assert fmt.speech_presence({"speech_presence": v}) in (True, False, None)
