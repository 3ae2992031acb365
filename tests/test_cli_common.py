"""Pieces the command modules share."""

from __future__ import annotations

import io

from foakit.cli.common import print_capped


def test_print_capped_lists_the_first_lines_then_how_many_more_and_where():
    out = io.StringIO()
    print_capped((f"f{i}.wav: bad" for i in range(23)), prefix="  error: ", more_prefix="  ",
                 where="clips.jsonl", file=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "  error: f0.wav: bad" and len(lines) == 21
    assert lines[-1] == "  ... 3 more in clips.jsonl"
    out = io.StringIO()
    print_capped(["a", "b"], prefix="x: ", limit=1, file=out)
    assert out.getvalue() == "x: a\nx: ... 1 more\n"
    out = io.StringIO()
    print_capped([], prefix="x: ", file=out)
    assert out.getvalue() == ""


def test_require_counts_names_the_bad_option_and_the_command(capsys):
    import argparse

    from foakit.cli.common import require_counts

    assert require_counts(argparse.Namespace(), "foakit x") is None  # options absent
    assert require_counts(argparse.Namespace(workers=None, max_figures=0), "foakit x") is None
    assert require_counts(argparse.Namespace(workers=0, max_figures=-1), "foakit x") == 2
    assert capsys.readouterr().err == "foakit x: error: --workers 0 must be >= 1\n"
    assert require_counts(argparse.Namespace(workers=2, max_figures=-1), "foakit y z") == 2
    assert capsys.readouterr().err == "foakit y z: error: --max-figures -1 must be >= 0\n"
