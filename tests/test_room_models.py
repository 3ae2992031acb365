"""benchmarks/room_models.py: the room engines measured on the same scenes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyroomacoustics")


@pytest.fixture()
def room_models(bench_script):
    return bench_script("room_models")


def test_measure_reads_decay_drr_direction_and_late_spread(room_models):
    sr = 16000
    rng = np.random.default_rng(0)
    n = sr
    t = np.arange(n) / sr
    h = np.zeros((4, n))
    # a direct sound from straight above at sample 0, then an isotropic tail decaying by
    # 60 dB in 0.5 s holding as much energy as the direct sound
    h[:, 0] = [1.0, 0.0, 1.0, 0.0]
    tail = rng.standard_normal((4, n)) * np.exp(-np.log(1000.0) * t / 0.5)
    tail[:, :160] = 0.0
    tail[1:] *= np.sqrt(1.0 / 3.0)
    h += tail / np.sqrt(np.sum(tail[0] ** 2))
    m = room_models.measure(h, sr, 0.0, 90.0)
    assert m["T20 / RT60"] == pytest.approx(0.5, rel=0.1)
    assert m["DRR"] == pytest.approx(0.0, abs=0.2)
    assert m["early dir err"] < 15.0
    assert m["late Z share"] == pytest.approx(1 / 3, abs=0.05)


def test_the_script_prints_each_engine(room_models, capsys):
    assert room_models.main(["--scenes", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("1 one-source rooms, RT60 0.2-0.9 s")
    assert [ln.split()[0] for ln in out[2:]] == list(room_models.ENGINES)
    with pytest.raises(SystemExit):
        room_models.main(["--scenes", "0"])
    assert "--scenes 0 must be >= 1" in capsys.readouterr().err
