"""benchmarks/onset_features.py: the combined score of the candidates' signals, fitted on
some saved runs and measured on others."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from foakit.params import AnalysisParams

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def of(bench_script):
    return bench_script("onset_features")


def _groups(rng: np.random.Generator, n_leak: int, n_true: int, shift: float) -> dict:
    """Candidates whose first three signals each move the true ones by ``shift`` / 2 (only
    their sum tells them well from leakage) and whose others are noise; the first is onset
    bins in dB over the cone's loud level, the onset test's floor at leakage's mean, and the
    true candidates below that floor are the masked ones."""
    floor = -AnalysisParams().event_onset_db

    def rows(n: int, s: float) -> np.ndarray:
        x = rng.normal(size=(n, 8))
        x[:, :3] += s / 2
        x[:, 0] = floor + 5.0 * x[:, 0]
        return x

    true = rows(n_true, shift).tolist()
    # a masked candidate is one of the true ones (the same row), as the run records it
    return {"leakage": rows(n_leak, 0.0).tolist(), "true": true,
            "masked": [r for r in true if r[0] < floor]}


def test_auc_counts_pairs_and_ties_half(of):
    assert of.auc([2.0, 3.0], [1.0]) == 1.0
    assert of.auc([1.0], [1.0, 2.0]) == 0.25
    assert np.isnan(of.auc([], [1.0]))


def test_pairwise_appends_every_product_once(of):
    x = np.array([[2.0, 3.0]])
    np.testing.assert_array_equal(of.pairwise(x), [[2.0, 3.0, 4.0, 6.0, 9.0]])


def test_the_logistic_score_learns_a_sum_no_single_signal_shows(of):
    rng = np.random.default_rng(0)
    n = 2000
    a, b = rng.normal(size=n), rng.normal(size=n)
    y = (a + b > 0).astype(np.float64)
    x = np.stack([a, b, rng.normal(size=n)], axis=1)
    mu, sd, w = of.fit_logistic(x, y)
    s = of.logistic_score(x, mu, sd, w)
    assert of.auc(list(s[y == 1]), list(s[y == 0])) > 0.99
    assert w[0] > 0 and w[1] > 0 and abs(w[2]) < 0.2 * w[0]
    with pytest.raises(ValueError, match="both classes"):
        of.fit_logistic(x, np.zeros(n))


def test_the_classes_weigh_alike_whatever_their_sizes(of):
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(-1, 1, (5000, 1)), rng.normal(1, 1, (100, 1))])
    y = np.r_[np.zeros(5000), np.ones(100)]
    mu, sd, w = of.fit_logistic(x, y)
    # balanced classes put the score's zero half-way between the two means (unweighted, the
    # prior of 50 to 1 would move it by log(50) / 2, about 2, toward the small class)
    mid = (x[y == 0].mean() + x[y == 1].mean()) / 2
    assert abs(of.logistic_score(np.array([[mid]]), mu, sd, w)[0]) < 0.3


def test_leakage_per_masked_at_a_threshold(of):
    got, per = of.leakage_per_masked(np.array([1.0, 2.0, 3.0, 4.0]),
                                     np.array([0.0, 2.5, 3.5, 5.0, 6.0]), 2.5)
    assert got == 0.5 and per == 2.0
    assert of.leakage_per_masked(np.array([1.0]), np.array([2.0]), 1.5) == (0.0, float("inf"))


def test_saved_candidates_keep_their_kinds(of, tmp_path):
    groups = {"leakage": [[0.0] * 8] * 5, "true": [[1.0] * 8, [2.0] * 8, [3.0] * 8]}
    groups["masked"] = groups["true"][1:]
    of._save(tmp_path / "a.npz", groups, "set a")
    x, kind, titles = of._load([tmp_path / "a.npz", tmp_path / "a.npz"])
    assert x.shape == (16, 8) and titles == ["set a", "set a"]
    assert list(kind[:8]) == [0] * 5 + [1, 2, 2]
    np.testing.assert_array_equal(x[5:8, 0], [1.0, 2.0, 3.0])


def test_combine_run_fits_on_some_files_and_measures_on_others(of, tmp_path):
    rng = np.random.default_rng(3)
    of._save(tmp_path / "fit.npz", _groups(rng, 4000, 1200, 2.0), "fitted set")
    of._save(tmp_path / "held.npz", _groups(rng, 3000, 1000, 2.0), "measured set")
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "onset_features.py"),
                          "--combine", str(tmp_path / "fit.npz"), "--on",
                          str(tmp_path / "held.npz")], capture_output=True, text=True,
                         check=True)
    lines = run.stdout.splitlines()
    x, kind, _ = of._load([tmp_path / "held.npz"])
    xf, kf, _ = of._load([tmp_path / "fit.npz"])
    assert lines[0] == (f"fitted on 5200 candidates (1200 true, {(kf == 2).sum()} masked) of: "
                        "fitted set")
    assert lines[1] == (f"measured on 4000 candidates (1000 true, {(kind == 2).sum()} masked) "
                        "of: measured set")
    passed = x[:, 0] >= -AnalysisParams().event_onset_db
    assert (f"keeps {passed[kind > 0].mean():.1%} of the true candidates and "
            f"{passed[kind == 0].mean():.1%} of the leakage") in lines[2]
    # at the onset test's leakage rate the sum of the first signals keeps more true ones
    kept = [float(ln.split("it keeps ")[1].split("%")[0]) for ln in lines
            if "true vs leakage: ROC area" in ln]
    assert len(kept) == 2 and min(kept) > 100 * passed[kind > 0].mean() + 5
    # among the candidates the test rejects, the sum of the other two tells the masked ones
    rejected = ~passed & (kind != 1)
    assert (f"rejects, {(rejected & (kind == 2)).sum()} masked onsets and "
            f"{(rejected & (kind == 0)).sum()} leakage") in lines[5]
    single = float(lines[5].split()[-1])
    rows = [ln for ln in lines if "masked vs leakage: ROC area" in ln]
    assert [ln.split()[0] for ln in rows] == ["linear", "quadratic"]
    aucs = [float(ln.split("ROC area ")[1].split(";")[0]) for ln in rows]
    assert single < 0.8 and min(aucs) > single + 0.04
    assert all(ln.count("leakage each") == 2 for ln in rows)


def test_combine_says_when_no_masked_onset_is_left_to_tell_apart(of, tmp_path, capsys):
    rng = np.random.default_rng(4)
    groups = _groups(rng, 300, 100, 2.0)
    of._save(tmp_path / "fit.npz", groups, "fitted set")
    of._save(tmp_path / "held.npz", {**groups, "masked": []}, "measured set")
    assert of.combine([tmp_path / "fit.npz"], [tmp_path / "held.npz"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "  no masked onset among the candidates the onset test rejects in the measured files")


def test_combine_needs_both_sides():
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "onset_features.py"),
                          "--combine", "x.npz"], capture_output=True, text=True)
    assert run.returncode == 2 and "--combine and --on go together" in run.stderr
