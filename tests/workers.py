"""Work functions and process helpers shared by the pool and Dask tests (module level, so
that worker processes can unpickle them)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from foakit.errors import FoakitError


def _square(batch, mode="", victim=None, pid_dir=None, delay=0.0):
    """The work of the tests (module level so the pool can pickle it): ``(x, x * x, pid)``
    per item; on the ``victim`` item the worker dies, is killed or raises, by ``mode``."""
    out = []
    for x in batch:
        time.sleep(delay)
        if x == victim:
            if mode == "exit":
                os._exit(3)
            if mode == "kill":  # wait for the test's killer thread, as for the OOM killer
                Path(pid_dir, str(os.getpid())).touch()
                time.sleep(60)
            if mode == "raise":
                raise ValueError(f"bad item {x}")
            if mode == "foakit":  # (AudioError and FormatError do not survive pickling)
                raise FoakitError("cannot write a checkpoint")
        out.append((x, x * x, os.getpid()))
    return out


def _failed(x, error):
    return (x, error, None)


def _proc_state(pid: int) -> str | None:
    """The state letter of a process (``Z`` for a zombie), None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def _children(pid: int) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(d))
            except (OSError, ValueError, IndexError):
                continue
    return out


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        kids = _children(todo.pop())
        out += kids
        todo += kids
    return out


def _marked(mark: str) -> list[int]:
    """Live (not zombie) processes whose environment holds ``FOAKIT_TEST_MARK=mark``."""
    needle = f"FOAKIT_TEST_MARK={mark}".encode()
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/environ", "rb") as fh:
                    if needle in fh.read().split(b"\0") and _proc_state(int(d)) not in (
                            None, "Z"):
                        out.append(int(d))
            except OSError:
                continue
    return out


def kill_parent_and_find_survivors(cmd, clips: Path, *, min_lines: int, n_children: int,
                                   mark: str, grace_s: float = 10.0):
    """Start ``cmd`` (a foakit command, its environment marked), kill -9 it once ``clips``
    holds ``min_lines`` lines, and return (children seen before the kill, live marked
    processes left ``grace_s`` later, lines written)."""

    env = dict(os.environ, FOAKIT_TEST_MARK=mark)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.time() + 180
        kids: list[int] = []
        while time.time() < deadline:
            if clips.exists() and clips.read_text().count("\n") >= min_lines:
                kids = _descendants(proc.pid)
                if len(kids) >= n_children:
                    break
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = clips.read_text().count("\n")

    def alive() -> list[int]:
        live = {p for p in kids if _proc_state(p) not in (None, "Z", "X")}
        return sorted(live | set(_marked(mark)))

    end = time.time() + grace_s
    while time.time() < end and alive():
        time.sleep(0.1)
    left = alive()
    for pid in left:  # leave no stray process behind, whatever the test says
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return kids, left, lines
