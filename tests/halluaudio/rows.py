"""Hand-made HalluAudio rows and parquet files for the tests."""

import json

import pyarrow as pa
import pyarrow.parquet as pq

SCHEMA = pa.schema([("audio_id", pa.string()), ("level", pa.string()),
                    ("audio", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
                    ("ground_truth", pa.string()), ("eval_cases", pa.string())])



def write_rows(path, rows, schema=SCHEMA):
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema), path)


def case(**kw):
    base = {"case_id": "c0", "prompt": "Is anyone speaking? A. Yes B. No",
            "scoring": "multiple_choice", "prompt_mode": "natural",
            "choice_options": {"A": "Yes", "B": "No"}, "expected_result": "A",
            "expected_result_class": "supported", "forbidden_claims": []}
    base.update(kw)
    return base


def row(aid, cases, *, level="L1", gt=None, audio=b"RIFF"):
    g = {"level": level, "speech_presence": "present"} if gt is None else gt
    return {"audio_id": aid, "level": level, "audio": {"bytes": audio, "path": f"{aid}.wav"},
            "ground_truth": g if isinstance(g, str) else json.dumps(g),
            "eval_cases": cases if isinstance(cases, str) else json.dumps(cases)}
