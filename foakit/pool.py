"""Crash-isolating process pools: run batches of items in worker processes.

:func:`run_batches` is what ``foakit analyze`` (:mod:`foakit.corpus`) and the label audits
(:mod:`foakit.audit.common`) run their clips with.  Batches are submitted to a
``ProcessPoolExecutor`` (forked workers on POSIX, spawned elsewhere) with a bounded number in
flight, so memory stays flat however long the corpus, and each finished batch is handed to a
callback in the parent as it comes (writing, checkpointing, progress).

A worker that dies (a crash inside a decoder, the OOM killer) breaks the pool and fails every
batch in flight with it.  Those batches' items are then run again one at a time in a
one-worker pool, where a second death names its item: only that item is recorded as failed,
through a record the caller builds, and the run goes on.

Workers end with their parent, whatever ends it (``kill -9`` included): on Linux each worker
asks the kernel for SIGKILL when its parent goes (``prctl(PR_SET_PDEATHSIG)``), and every
worker also watches a pipe whose writing end only the parent holds, so that it exits on the
pipe's end of file where that signal does not exist.

With ``dask=`` the same batches run on a Dask cluster instead (:mod:`foakit.dist`).
"""

from __future__ import annotations

import concurrent.futures as cf
import ctypes
import gc
import multiprocessing
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from .errors import WORKER_DIED, ParameterError

__all__ = ["WORKER_DIED", "run_batches"]

T = TypeVar("T")
R = TypeVar("R")


def run_batches(
    batches: deque[list[T]],
    work: Callable[[list[T]], list[R]],
    finish: Callable[[list[R]], None],
    failed: Callable[[T, str], R],
    *,
    workers: int,
    in_flight: int | None = None,
    idle: Callable[[], bool] | None = None,
    preload: Callable[[], None] | None = None,
    initializer: Callable[[], None] | None = None,
    reraise: tuple[type[BaseException], ...] = (),
    dask: Any = None,
) -> None:
    """Run every batch of ``batches`` through ``work`` and hand the results to ``finish``.

    With one worker, or at most one batch, the batches run in this process (no pool to
    start, and nothing is isolated: an exception of ``work`` propagates).  Otherwise they
    run in worker processes, and every item ends up in exactly one ``finish`` call: with the
    result ``work`` gave it, or with the record ``failed`` built for it.

    Parameters
    ----------
    batches : deque of list
        Consumed from the left, so batches are submitted in order (results come back in the
        order they finish).  ``finish`` and ``idle`` may append batches; they run in the
        same call.
    work : callable
        ``work(batch) -> results``, one result per item.  Runs in a worker, so it must be
        picklable (a module-level function, or a ``functools.partial`` of one).
    finish : callable
        ``finish(results)``, called in this process with each finished batch's results (or
        failure records), one batch at a time.
    failed : callable
        ``failed(item, error) -> result``: the record of an item that could not be run,
        built in this process; ``error`` is one line (:data:`WORKER_DIED` when its worker
        died on it alone, ``"internal error: ..."`` when ``work`` raised).
    workers : int
        Worker processes (>= 1); 1 runs in this process.
    in_flight : int, optional
        Batches submitted and not yet finished at the most (default ``2 * workers``: every
        worker has its next batch queued).
    idle : callable, optional
        Other work for this process: called while batches are in flight and none has
        finished, again at once while it returns True, and not until a batch finishes once
        it returns False.  It is also called after the last batch until it returns False
        (in this process, before the batches), so its work is all done on return.
    preload : callable, optional
        Called once in this process before the first pool starts, when the workers are
        forked, so that they inherit what it loads (skipped when they are spawned).
    initializer : callable, optional
        Run at the start of every worker process (picklable).
    reraise : tuple of exception types
        Exceptions of ``work`` that stop the run (they propagate from here, e.g. an output
        that cannot be written); any other exception fails the items of its batch.
    dask : str, PathLike, DaskCluster or distributed.Client, optional
        Run the batches on this Dask cluster instead of local processes (see
        :func:`foakit.dist.run_batches_dask`): ``"local"`` / ``"local:N"``, a scheduler
        address ``"tcp://host:port"``, a scheduler file, an open
        :class:`foakit.dist.DaskCluster` or a ``distributed.Client``.  ``workers`` and
        ``preload`` are then not used; ``in_flight`` counts tasks.

    Raises
    ------
    ParameterError
        ``workers`` or ``in_flight`` is below 1.
    BackendUnavailable
        ``dask`` is given and Dask is not installed.
    """
    if dask is not None:
        from .dist import run_batches_dask

        run_batches_dask(batches, work, finish, failed, cluster=dask, in_flight=in_flight,
                         idle=idle, initializer=initializer, reraise=reraise)
        return
    if workers < 1:
        raise ParameterError(f"{workers=} must be >= 1")
    depth = 2 * workers if in_flight is None else in_flight
    if depth < 1:
        raise ParameterError(f"{in_flight=} must be >= 1")
    if workers == 1 or len(batches) <= 1:
        while idle is not None and idle():
            pass
        while batches:
            finish(work(batches.popleft()))
        return
    ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    forked = ctx.get_start_method() == "fork"
    if preload is not None and forked:
        preload()
    # Forked workers share this process's pages until either side writes to them.  A full
    # garbage collection writes to the header of every object it visits, so one in this
    # process (or a worker) while they run copies its whole Python heap page by page (some
    # 7000 page faults, 60 ms, after loading the kernels).  Frozen objects are not visited;
    # they are put back at the end (left alone when the caller froze some itself).
    freeze = forked and gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    guard = _ParentGuard()
    rnd = _Round(ctx, work, finish, failed, idle, guard.initializer(initializer, forked),
                 reraise)
    suspects: deque[list[T]] = deque()
    try:
        while True:
            if batches:
                for b in rnd.run(batches, workers, depth):
                    suspects.extend([item] for item in b)
            elif suspects:
                for b in rnd.run(suspects, 1, 1):  # a crash here names its item
                    finish([failed(b[0], WORKER_DIED)])
            elif idle is None or not idle():
                return
    finally:
        guard.close()
        if freeze:
            gc.unfreeze()


class _ParentGuard:
    """What makes the workers of one :func:`run_batches` call end with this process.

    The pipe's writing end stays open in this process only: each forked worker closes its
    inherited copy at start and reads the other end in a thread, which sees end of file
    once this process is gone (all the workers' copies being closed).  Both ends are closed
    on exec, so programs this process starts do not hold them.  Spawned workers inherit no
    descriptors; they rely on the signal (Linux) and the start-up check alone.
    """

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.read_fd, self.write_fd = os.pipe()

    def initializer(self, then: Callable[[], None] | None, forked: bool) -> Callable[[], None]:
        fds = (self.read_fd, self.write_fd) if forked else (-1, -1)
        return partial(_worker_start, self.pid, *fds, then)

    def close(self) -> None:
        for fd in (self.read_fd, self.write_fd):
            try:
                os.close(fd)
            except OSError:
                pass


_PR_SET_PDEATHSIG = 1


def _worker_start(parent: int, read_fd: int, write_fd: int,
                  then: Callable[[], None] | None) -> None:
    """A worker's first step: arrange to end with ``parent``, then run ``then``."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no prctl: the pipe below still ends us
            pass
    if write_fd >= 0:
        os.close(write_fd)  # our inherited copy: only the parent's may keep the pipe open
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    if read_fd >= 0:
        threading.Thread(target=_exit_on_eof, args=(read_fd,), name="foakit-parent-watch",
                         daemon=True).start()
    if then is not None:
        then()


def _exit_on_eof(fd: int) -> None:
    """Block on the parent's pipe; its end of file means the parent is gone."""
    try:
        while os.read(fd, 1):
            pass
    except OSError:
        pass
    os._exit(1)


class _Round:
    """One pool's life: run batches from a queue until it is empty or the pool breaks."""

    def __init__(self, ctx, work, finish, failed, idle, initializer, reraise) -> None:
        self.ctx = ctx
        self.work = work
        self.finish = finish
        self.failed = failed
        self.idle = idle
        self.initializer = initializer
        self.reraise = reraise

    def run(self, queue: deque[list], workers: int, depth: int) -> list[list]:
        """Run batches popped from ``queue`` (at most ``depth`` in flight); return the
        batches that were in flight when the pool broke (none when it did not)."""
        crashed: list[list] = []
        broken = False
        with cf.ProcessPoolExecutor(max_workers=workers, mp_context=self.ctx,
                                    initializer=self.initializer) as pool:
            inflight: dict[cf.Future, list] = {}
            while queue or inflight:
                while queue and len(inflight) < depth and not (crashed or broken):
                    b = queue.popleft()
                    try:
                        inflight[pool.submit(self.work, b)] = b
                    except cf.process.BrokenProcessPool:
                        # a worker died while this process was in finish or idle: the
                        # batches in flight fail with it; this one never started
                        queue.appendleft(b)
                        broken = True
                if not inflight:
                    break
                for fut in self._wait(inflight):
                    b = inflight.pop(fut)
                    try:
                        results = fut.result()
                    except cf.process.BrokenProcessPool:
                        crashed.append(b)
                        continue
                    except self.reraise:
                        raise
                    except Exception as exc:
                        msg = f"internal error: {type(exc).__name__}: {exc}"
                        results = [self.failed(item, msg) for item in b]
                    self.finish(results)
        return crashed

    def _wait(self, inflight: dict[cf.Future, list]) -> set[cf.Future]:
        """The finished futures, doing idle work while there are none."""
        if self.idle is not None:
            done, _ = cf.wait(inflight, timeout=0, return_when=cf.FIRST_COMPLETED)
            if done or self.idle():
                return done
        done, _ = cf.wait(inflight, return_when=cf.FIRST_COMPLETED)
        return done
