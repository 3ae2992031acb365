"""``foakit demo`` explains each true source it misses."""

import os
import subprocess
import sys

import pytest

from foakit.cli.demo import explain_miss


def _src(az, on, off, *, el=0.0, dist=2.0, level=0.0, end=None):
    return {"azimuth_deg": az, "elevation_deg": el, "distance_m": dist, "onset_s": on,
            "offset_s": off, "level_db": level, "azimuth_end_deg": end,
            "motion": "stationary" if end is None else "left_to_right"}


def _ev(az, on, off, el=0.0):
    return {"azimuth_deg": az, "elevation_deg": el, "onset_s": on, "offset_s": off}


def test_masked_onset_under_a_louder_source():
    loud, quiet = _src(100.0, 1.0, 8.0, dist=1.0), _src(-40.0, 3.5, 9.0, dist=4.0)
    why = explain_miss(quiet, [loud, quiet], [_ev(100.0, 1.0, 8.0)], {0: 0},
                       direct_snr_db=5.0, rt60_s=0.7)
    assert why.startswith("no event from within 20 deg of its direction")
    # 20 log10(4 / 1) = 12.0 dB quieter at the microphone
    assert ("it starts 2.5 s after the source at 100.0 deg began, while that one plays, "
            "12.0 dB below it at the microphone (a masked onset)") in why
    assert "only 5.0 dB above the noise" in why and "RT60 0.70 s" in why


def test_late_event_and_event_paired_elsewhere():
    a, b = _src(-97.5, 7.0, 9.2), _src(94.0, 7.6, 9.3)
    events = [_ev(-103.7, 1.6, 2.3), _ev(-103.7, 7.02, 9.2)]
    # the pairing gave the event that fits a to b
    why = explain_miss(a, [a, b], events, {0: 0, 1: 1})
    assert why == ("the event from -103.7 deg at 7.02 s fits it but is paired with the "
                   "source at 94.0 deg (the pairing weighs onset and direction errors "
                   "together)")
    late = explain_miss(a, [a, b], [_ev(-95.0, 7.6, 9.2)], {0: 1})
    assert late == "found from its direction (-95.0 deg) only from 7.60 s, +0.60 s off"


def test_neighbour_direction_and_motion_are_named():
    a = _src(10.0, 2.0, 6.0, end=80.0)
    b = _src(40.0, 5.0, 9.0, el=10.0)  # 11 deg from the middle of a's path (45, 0)
    why = explain_miss(a, [a, b], [], {}, direct_snr_db=20.0, rt60_s=0.3)
    assert why.split("; ") == ["no event from within 20 deg of its direction",
                               "it lies 11 deg from the source at 40.0 deg",
                               "it moves (left_to_right)"]


@pytest.mark.slow
def test_demo_prints_a_reason_for_every_miss(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    r = subprocess.run([sys.executable, "-m", "foakit", "demo", "-o", str(tmp_path / "d"),
                        "--no-progress", "--workers", "1"], capture_output=True, text=True,
                       timeout=600, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.splitlines()
    missed = [i for i, line in enumerate(lines) if " missed " in f"{line} "
              and "why missed" not in line and "true events" not in line]
    assert all(lines[i + 1].strip().startswith("why missed: ") for i in missed)
    extra = [i for i, line in enumerate(lines) if "extra event (no true source)" in line]
    assert all(lines[i + 1].strip().startswith("why extra: ") for i in extra)
    summary = [line for line in lines if "true events detected" in line][0]
    found, total = (int(v) for v in summary.split()[0].split("/"))
    reasons = sum(line.strip().startswith("why missed: ") for line in lines)
    assert reasons == total - found
    if reasons:
        assert f"{reasons} missed, {reasons} of them explained above" in r.stdout


def test_an_extra_event_names_the_onset_it_repeats_and_the_source_it_borrows_a_cone_from():
    from foakit.cli.demo import explain_extra

    a, b = _src(-97.5, 7.0, 9.2), _src(-5.7, 1.5, 3.6)
    why = explain_extra(_ev(-103.7, 1.6, 2.3), [a, b])
    assert why == ("from the direction of the source at -97.5 deg (6 deg off), starting "
                   "-5.40 s from its onset (outside its span); it starts with the source at "
                   "-5.7 deg (+0.10 s): a reflection of its onset")
    alone = explain_extra(_ev(60.0, 9.5, 9.9), [a, b])
    assert alone == ("no true source within 20 deg of its direction (nearest: -5.7 deg, 66 "
                     "deg off); no true source plays then")
    twice = explain_extra(_ev(-97.0, 8.0, 9.0), [a, b])
    assert twice.startswith("from the direction of the source at -97.5 deg (0 deg off), "
                            "starting +1.00 s from its onset (the same sound found twice)")
