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


def _parsers(parser, path=()):
    """Every (command path, parser) reachable from ``parser``."""
    import argparse

    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _parsers(child, (*path, name))


def test_every_command_declares_the_shared_options_as_the_table_says():
    from foakit.cli import build_parser
    from foakit.cli.common import SHARED_OPTIONS

    by_flag = {flags[-1]: (name, kwargs) for name, (flags, kwargs) in SHARED_OPTIONS.items()}
    seen: dict[str, set] = {}
    for path, parser in _parsers(build_parser()):
        for action in parser._actions:
            flag = next((f for f in action.option_strings if f in by_flag), None)
            if flag is None:
                continue
            name, kwargs = by_flag[flag]
            seen.setdefault(name, set()).add(path)
            assert tuple(action.option_strings) == SHARED_OPTIONS[name][0], (path, flag)
            # what may differ per command: -o's metavar / help / default / required, and
            # how many figures a command writes by default
            fixed = {k: v for k, v in kwargs.items() if not (
                name == "out" or (name == "max_figures" and k in ("default", "help")))}
            for key, value in fixed.items():
                if key == "action":  # every shared switch is a store_true
                    assert (action.nargs, action.const, action.default) == (0, True, False), \
                        (path, flag)
                else:
                    assert getattr(action, key) == value, (path, flag, key)
    # the options really are shared: each is used by several commands
    for name in ("out", "workers", "no_progress", "dask", "retry_errors", "channel_order"):
        assert len(seen.get(name, ())) >= 3, (name, seen.get(name))


def test_add_shared_options_names_an_unknown_option():
    import argparse

    import pytest

    from foakit.cli.common import add_shared_options

    with pytest.raises(ValueError, match="'--wrkers'|wrkers"):
        add_shared_options(argparse.ArgumentParser(), "wrkers")
    with pytest.raises(ValueError, match="outt"):
        add_shared_options(argparse.ArgumentParser(), "out", outt={"required": True})
