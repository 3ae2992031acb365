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
