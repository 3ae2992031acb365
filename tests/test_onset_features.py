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
    # the weights are the penalised optimum: its gradient vanishes there
    z = np.concatenate([(x - mu) / sd, np.ones((n, 1))], axis=1)
    p = 1.0 / (1.0 + np.exp(-(z @ w)))
    w_cls = np.where(y == 1, 0.5 / y.sum(), 0.5 / (n - y.sum()))
    grad = z.T @ (w_cls * (p - y)) + 1e-2 * np.r_[w[:-1], 0.0]
    assert np.abs(grad).max() < 1e-8
    with pytest.raises(ValueError, match="both classes: 0 of 2000 are 1"):
        of.fit_logistic(x, np.zeros(n))
    with pytest.raises(RuntimeError, match="did not converge in iters=1 iterations"):
        of.fit_logistic(x, y, iters=1)


def test_the_classes_weigh_alike_whatever_their_sizes(of):
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(-1, 1, (5000, 1)), rng.normal(1, 1, (100, 1))])
    y = np.r_[np.zeros(5000), np.ones(100)]
    mu, sd, w = of.fit_logistic(x, y)
    # balanced classes put the score's zero half-way between the two means (unweighted, the
    # prior of 50 to 1 would move it by log(50) / 2, about 2, toward the small class)
    mid = (x[y == 0].mean() + x[y == 1].mean()) / 2
    assert abs(of.logistic_score(np.array([[mid]]), mu, sd, w)[0]) < 0.05


def test_leakage_per_masked_at_a_threshold(of):
    got, per = of.leakage_per_masked(np.array([1.0, 2.0, 3.0, 4.0]),
                                     np.array([0.0, 2.5, 3.5, 5.0, 6.0]), 2.5)
    assert got == 0.5 and per == 2.0
    assert of.leakage_per_masked(np.array([1.0]), np.array([2.0]), 1.5) == (0.0, float("inf"))


def test_saved_candidates_keep_their_kinds(of, tmp_path):
    groups = {"leakage": [[0.0] * 8] * 5, "true": [[1.0] * 8, [2.0] * 8, [3.0] * 8]}
    groups["masked"] = groups["true"][1:]
    of._save(tmp_path / "a.npz", groups, "set a", onset_db=15.0)
    x, kind, titles, onset_db = of._load([tmp_path / "a.npz", tmp_path / "a.npz"])
    assert x.shape == (16, 8) and titles == ["set a", "set a"] and onset_db == 15.0
    assert list(kind[:8]) == [0] * 5 + [1, 2, 2]
    np.testing.assert_array_equal(x[5:8, 0], [1.0, 2.0, 3.0])


def test_saving_and_loading_refuse_what_would_mix_up_kinds(of, tmp_path):
    groups = {"leakage": [[0.0] * 8], "true": [[1.0] * 8], "masked": [[1.0] * 8]}
    with pytest.raises(ValueError, match="0 of the 1 masked candidates are rows of the true"):
        of._save(tmp_path / "a.npz", groups, "copied rows", onset_db=15.0)
    groups["masked"] = groups["true"]
    of._save(tmp_path / "a.npz", groups, "a", onset_db=15.0)
    of._save(tmp_path / "b.npz", groups, "b", onset_db=12.0)
    with pytest.raises(ValueError, match=r"saved with event_onset_db \[12.0, 15.0\]"):
        of._load([tmp_path / "a.npz", tmp_path / "b.npz"])
    np.savez(tmp_path / "c.npz", features=np.zeros((2, 7)), kind=np.zeros(2, np.int8),
             title="c", onset_db=15.0)
    with pytest.raises(ValueError, match=r"c.npz: features of shape \(2, 7\), not \(n, 8\)"):
        of._load([tmp_path / "c.npz"])
    np.savez(tmp_path / "d.npz", features=np.zeros((2, 8)), kind=np.zeros(2, np.int8))
    with pytest.raises(ValueError, match=r"d.npz: no title, onset_db \(not saved by --save\)"):
        of._load([tmp_path / "d.npz"])
    with pytest.raises(ValueError, match="the fitted files were saved with event_onset_db 15"):
        of.combine([tmp_path / "a.npz"], [tmp_path / "b.npz"])


def _save(of, path: Path, groups: dict, title: str) -> None:
    of._save(path, groups, title, onset_db=AnalysisParams().event_onset_db)


def test_combine_run_fits_on_some_files_and_measures_on_others(of, tmp_path):
    rng = np.random.default_rng(3)
    _save(of, tmp_path / "fit.npz", _groups(rng, 4000, 1200, 2.0), "fitted set")
    _save(of, tmp_path / "held.npz", _groups(rng, 3000, 1000, 2.0), "measured set")
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "onset_features.py"),
                          "--combine", str(tmp_path / "fit.npz"), "--on",
                          str(tmp_path / "held.npz")], capture_output=True, text=True,
                         check=True)
    lines = run.stdout.splitlines()
    x, kind, _, _ = of._load([tmp_path / "held.npz"])
    xf, kf, _, _ = of._load([tmp_path / "fit.npz"])
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
    # the linear row's figures, recomputed from a fit on the fitted file's rejected candidates
    rej_f = (xf[:, 0] < -AnalysisParams().event_onset_db) & (kf != 1)
    mu, sd, w = of.fit_logistic(xf[rej_f], (kf[rej_f] == 2).astype(np.float64))
    sf, sm = of.logistic_score(xf, mu, sd, w), of.logistic_score(x, mu, sd, w)
    masked, leak = rejected & (kind == 2), rejected & (kind == 0)
    cells = []
    for share in (0.25, 0.5):
        got, per = of.leakage_per_masked(
            sm[masked], sm[leak], float(np.quantile(sf[rej_f & (kf == 2)], 1 - share)))
        own = of.leakage_per_masked(sm[masked], sm[leak],
                                    float(np.quantile(sm[masked], 1 - share)))[1]
        cells.append(f"{got:.0%} of them with {per:.1f} leakage each (own {share:.0%}: "
                     f"{own:.1f})")
    assert rows[0] == (f"  linear score, masked vs leakage: ROC area "
                       f"{of.auc(list(sm[masked]), list(sm[leak])):.3f}; admitting "
                       + ", ".join(cells))


def test_thresholds_come_from_the_fitted_files(of, tmp_path, capsys):
    rng = np.random.default_rng(5)
    _save(of, tmp_path / "fit.npz", _groups(rng, 3000, 1000, 2.0), "fitted set")
    held = _groups(rng, 3000, 1000, 2.0)
    for row in held["masked"]:  # masked onsets far above the fitted files' thresholds
        row[1] += 6.0
        row[2] += 6.0
    _save(of, tmp_path / "held.npz", held, "measured set")
    of.combine([tmp_path / "fit.npz"], [tmp_path / "held.npz"])
    rows = [ln for ln in capsys.readouterr().out.splitlines() if "masked vs leakage" in ln]
    # thresholds set on the measured masked onsets would admit 25 % and 50 % of them
    assert all("admitting 100% of them" in ln and ", 100% of them" in ln for ln in rows)


def test_the_quadratic_score_sees_a_spread_the_linear_one_cannot(of, tmp_path, capsys):
    rng = np.random.default_rng(6)
    floor = -AnalysisParams().event_onset_db

    def groups(n_leak: int, n_true: int) -> dict:
        leak = rng.normal(size=(n_leak, 8))
        true = rng.normal(size=(n_true, 8))
        true[:, 1] *= 3.0  # true candidates differ from leakage in spread only
        leak[:, 0], true[:, 0] = floor - 5.0, floor - 5.0  # every candidate rejected
        t = true.tolist()
        return {"leakage": leak.tolist(), "true": t, "masked": t}

    _save(of, tmp_path / "fit.npz", groups(3000, 600), "fitted set")
    _save(of, tmp_path / "held.npz", groups(3000, 600), "measured set")
    of.combine([tmp_path / "fit.npz"], [tmp_path / "held.npz"])
    rows = [ln for ln in capsys.readouterr().out.splitlines() if "masked vs leakage" in ln]
    linear, quadratic = (float(ln.split("ROC area ")[1].split(";")[0]) for ln in rows)
    assert quadratic > linear + 0.1


@pytest.mark.parametrize("empty", ["fitted", "measured"])
def test_combine_says_when_no_masked_onset_is_left_to_tell_apart(of, tmp_path, capsys, empty):
    rng = np.random.default_rng(4)
    groups = _groups(rng, 300, 100, 2.0)
    _save(of, tmp_path / "fit.npz", {**groups, "masked": []} if empty == "fitted" else groups,
          "fitted set")
    _save(of, tmp_path / "held.npz", {**groups, "masked": []} if empty == "measured"
          else groups, "measured set")
    assert of.combine([tmp_path / "fit.npz"], [tmp_path / "held.npz"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"  no masked onset among the candidates the onset test rejects in the {empty} files")


@pytest.mark.parametrize(("argv", "message"), [
    (["--combine", "x.npz"], "--combine needs --on"),
    (["--on", "x.npz"], "--on needs --combine"),
    (["--combine", "missing.npz", "--on", "missing.npz"], "onset_features.py: "),
])
def test_combine_refuses_with_one_line(argv, message, tmp_path):
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "onset_features.py"),
                          *argv], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 2 and message in run.stderr
    assert "Traceback" not in run.stderr
