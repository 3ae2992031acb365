"""benchmarks/audit_bar.py: the corpus settings its command line gives the writers (also
what ``starss_flag_kinds.py --settings bar`` writes)."""

from __future__ import annotations

import pytest


@pytest.fixture()
def audit_bar(bench_script):
    return bench_script("audit_bar")


def test_the_default_starss_bar_corpus_is_80_stationary_ism_clips(audit_bar):
    args = audit_bar.build_parser().parse_args([])
    assert audit_bar.starss_writer_kwargs(args, audit_bar.corpus_kwargs(args)) == {
        "n_clips": 80, "seed": 0, "engine": "ism", "rt60_s": (0.3, 0.8),
        "snr_db": (15.0, 30.0), "allow_motion": False}


def test_options_reach_both_writers_settings(audit_bar):
    args = audit_bar.build_parser().parse_args(
        ["--anechoic", "--motion", "--snr", "5", "10", "--seed", "4", "--starss-clips", "12"])
    kw = audit_bar.corpus_kwargs(args)
    assert kw == {"rt60_s": None, "snr_db": (5.0, 10.0), "allow_motion": True}
    assert audit_bar.starss_writer_kwargs(args, kw) == {"n_clips": 12, "seed": 4,
                                                        "engine": "ism", **kw}
    with pytest.raises(SystemExit):
        audit_bar.build_parser().parse_args(["--engine", "other"])
