import importlib.util
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from .scenes import plane_wave_scene

settings.register_profile(
    "ci", derandomize=True, max_examples=25, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=50, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def scene():
    return plane_wave_scene


BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def bench_script(monkeypatch):
    """Import a ``benchmarks/`` script as a module, by name: its folder is on ``sys.path``
    (the scripts import each other) and the module in ``sys.modules`` for the test only."""

    def load(name: str):
        monkeypatch.syspath_prepend(str(BENCHMARKS))
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, name, mod)
        spec.loader.exec_module(mod)
        return mod

    return load


@pytest.fixture
def recordings_pool(bench_script, tmp_path):
    """A ``benchmarks/accuracy.py`` :class:`RealSources` pool of two hand-made 16 kHz
    recordings under ``tmp_path``: group ("p", "speech") a 1 s tone after 0.5 s of hiss 30 dB
    below it (``word.wav``), group ("q", "effect") a 5 s noise (``long.wav``)."""
    import numpy as np
    import soundfile as sf

    accuracy = bench_script("accuracy")
    sr = 16000
    rng = np.random.default_rng(0)
    t = np.arange(sr) / sr
    word = np.concatenate([0.02 * rng.standard_normal(sr // 2), 0.9 * np.sin(2e3 * t)])
    sf.write(tmp_path / "word.wav", word, sr)
    sf.write(tmp_path / "long.wav", 0.3 * rng.standard_normal(5 * sr), sr)
    pool = object.__new__(accuracy.RealSources)
    pool.rows = [{"package": "p", "kind": "speech", "file": tmp_path / "word.wav"},
                 {"package": "q", "kind": "effect", "file": tmp_path / "long.wav"}]
    pool.groups = [("p", "speech"), ("q", "effect")]
    pool._cache = {}
    return pool
