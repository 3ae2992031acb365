"""foakit's per-clip batches on a Dask cluster (the ``dask`` extra, ``dask[distributed]``).

:func:`run_batches_dask` is :func:`foakit.pool.run_batches` with Dask's distributed scheduler
in place of the local process pool, and the same callbacks: batches go to the cluster as
tasks, results come back as the tasks finish (``as_completed``), and every callback
(``finish``, ``failed``, ``idle``) runs in this process, the client.  What comes back is what
``work`` returns: ``foakit analyze`` has its workers write each batch's outputs into OUT and
return a small summary per clip, which ``finish`` commits (:mod:`foakit.corpus`), so a Dask
run writes what a local run writes, and resumes and survives ``kill -9`` the same way.

Tasks are sized by measurement: a task is a group of the caller's batches, one at first,
then as many as make about :data:`TARGET_TASK_S` of work by the compute time that the
finished tasks report (capped so that every worker thread still has two tasks to come),
because the scheduler costs about a millisecond per task however small the task.

Faults, with the same outcome as the local pool's crash isolation:

- a worker lost mid-run (killed, out of memory, its node gone): the scheduler runs its
  tasks elsewhere, or, past its ``allowed-failures``, fails them with ``KilledWorker``;
  the items of such a task are then run again as one-item tasks, so nothing is lost and
  every item is recorded once;
- a one-item task killed again becomes a suspect; suspects run one at a time once nothing
  else is in flight, and a suspect whose worker dies there too is recorded through
  ``failed(item, WORKER_DIED)``.

Workers read the audio from the paths the client gives them: they must see the same files
at the same paths (a shared or replicated filesystem).  Importing this module does not
import Dask; opening a cluster does.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import gc
import hashlib
import importlib.util
import logging
import math
import os
import pickle
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import WORKER_DIED, BackendUnavailable, FoakitError, ParameterError

__all__ = [
    "ClusterError",
    "DaskCluster",
    "LOCAL_CONFIG",
    "RunStats",
    "TARGET_TASK_S",
    "open_cluster",
    "parse_dask_spec",
    "run_batches_dask",
]

#: Seconds of work a task is grown to (by the measured time per batch).
TARGET_TASK_S = 1.0

#: Dask settings of the ``local[:N]`` clusters foakit starts (its scheduler, nannies and
#: workers), for as long as the cluster lives.  Dask's defaults keep every process busy
#: by the clock, not by the work: a statistical profiler sampling each worker's running
#: thread every 10 ms, an event-loop health check every 20 ms in every process, system
#: monitors every 0.5 s and the nannies' memory checks every 0.1 s.  Measured on an idle
#: 2-worker LocalCluster, that is 7.9 % of a core, against 1.7 % with these settings
#: (``docs/dask.md``); on a busy machine it is taken from the workers.  The dashboard then
#: has no profile page; the memory limits are still enforced, checked once a second.
LOCAL_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
}

_NO_DASK = "the dask extra is not installed: pip install 'foakit[dask]'"


class ClusterError(FoakitError, RuntimeError):
    """The Dask cluster cannot be reached or was lost (the message names its address)."""


def parse_dask_spec(spec: str | os.PathLike) -> tuple[str, Any]:
    """What a ``--dask`` value names.

    Parameters
    ----------
    spec : str or PathLike
        ``"local"`` (a LocalCluster of one single-threaded worker process per core),
        ``"local:N"`` (N worker processes), a scheduler address ``"tcp://HOST:PORT"`` (any
        ``scheme://``), or the path of a scheduler file (``dask scheduler
        --scheduler-file``).

    Returns
    -------
    (kind, value)
        ``("local", n_workers)``, ``("address", address)`` or ``("file", path)``.

    Raises
    ------
    ParameterError
        A bad worker count, or a path that is no file.
    """
    text = os.fspath(spec).strip()
    if text == "local" or text.startswith("local:"):
        n_text = text[len("local:"):] if ":" in text else ""
        if not n_text:
            return "local", os.cpu_count() or 1
        try:
            n = int(n_text)
        except ValueError:
            raise ParameterError(f"--dask {text!r}: the worker count {n_text!r} is not an "
                                 "integer") from None
        if n < 1:
            raise ParameterError(f"--dask {text!r}: the worker count {n} must be >= 1")
        return "local", n
    if "://" in text:
        return "address", text
    if not os.path.isfile(text):
        raise ParameterError(f"--dask {text!r} is neither 'local[:N]', a scheduler address "
                             "(tcp://HOST:PORT) nor an existing scheduler file")
    return "file", text


@dataclass
class RunStats:
    """What one :func:`run_batches_dask` call did (for benchmarks and reports).

    Attributes
    ----------
    tasks : int
        Tasks that finished (with a result, an error or a killed worker).
    batches : int
        Caller batches delivered through tasks of several or one batch.
    group_sizes : list of int
        Batches per task, in the order the tasks were submitted.
    compute_s : float
        Seconds the workers spent in ``work`` (summed over tasks).
    finish_s : float
        Seconds this process spent in ``finish``.
    killed : int
        Tasks that failed with ``KilledWorker``.
    wall_s : float
    """

    tasks: int = 0
    batches: int = 0
    group_sizes: list[int] = field(default_factory=list)
    compute_s: float = 0.0
    finish_s: float = 0.0
    killed: int = 0
    wall_s: float = 0.0


class DaskCluster:
    """A client of a Dask cluster; for ``local[:N]`` also the LocalCluster it started.

    Parameters
    ----------
    spec : str or PathLike
        See :func:`parse_dask_spec`.
    timeout_s : float
        How long to try to reach a remote scheduler.
    dashboard : bool
        Serve the dashboard of a LocalCluster (on 127.0.0.1, a free port; needs bokeh).
    target_task_s : float
        Seconds of work the runs on this cluster grow their tasks to (see
        :func:`run_batches_dask`); larger on large clusters, where the scheduler's time per
        task sets the limit.

    Notes
    -----
    A LocalCluster runs single-threaded worker processes on 127.0.0.1 with
    ``allowed_failures=0``: a task whose worker dies fails at once with ``KilledWorker``
    and its items are run again one by one (see the module docstring), as the local pool
    does.  Its workers end with this process, ``kill -9`` included (Dask's nanny holds a
    pipe to each).  Use as a context manager, or call :meth:`close`.

    Raises
    ------
    BackendUnavailable
        Dask is not installed.
    ClusterError
        The scheduler cannot be reached.
    """

    def __init__(self, spec: str | os.PathLike, *, timeout_s: float = 30.0,
                 dashboard: bool = True, target_task_s: float = TARGET_TASK_S) -> None:
        if not target_task_s > 0:
            raise ParameterError(f"{target_task_s=} must be > 0")
        self.target_task_s = float(target_task_s)
        self.kind, value = parse_dask_spec(spec)
        self.spec = os.fspath(spec)
        self.cluster = None
        self.last_run: RunStats | None = None
        self._config = None
        self._client_config = None
        # a LocalCluster's scheduler always serves HTTP (on a free port of 127.0.0.1);
        # the dashboard's pages, and bokeh's import, only when asked
        self._local_dashboard = bool(dashboard) and _has_bokeh()
        if self.kind == "local" and importlib.util.find_spec("distributed") is not None:
            _start_fork_server()  # it loads foakit while this process imports Dask
        try:
            import dask
            import distributed
        except ImportError:
            raise BackendUnavailable(_NO_DASK) from None
        # this process's own event loop, checked by the second as in the local cluster
        self._client_config = dask.config.set({"distributed.admin.tick.interval": "1s"})
        try:
            if self.kind == "local":
                self._fork_server()
                self.cluster = distributed.LocalCluster(
                    n_workers=value, threads_per_worker=1, processes=True, host="127.0.0.1",
                    dashboard_address="127.0.0.1:0",
                    scheduler_kwargs={"allowed_failures": 0,
                                      "dashboard": self._local_dashboard},
                    silence_logs=logging.CRITICAL)
                self.client = distributed.Client(self.cluster, set_as_default=False)
            elif self.kind == "address":
                self.client = distributed.Client(value, timeout=timeout_s,
                                                 set_as_default=False)
            else:
                self.client = distributed.Client(scheduler_file=value, timeout=timeout_s,
                                                 set_as_default=False)
        except (OSError, TimeoutError) as exc:
            self.close()
            raise ClusterError(f"cannot reach the Dask scheduler of --dask {self.spec!r}: "
                               f"{type(exc).__name__}: {exc}") from None

    def _fork_server(self) -> None:
        """Have the LocalCluster's workers forked from the server of
        :func:`_start_fork_server`, for the life of this object (the nanny restarts lost
        workers the same way)."""
        import dask
        import distributed.utils

        self._config = dask.config.set(
            {"distributed.worker.multiprocessing-method": "forkserver", **LOCAL_CONFIG})
        # Dask's own choice of preloaded modules imports pandas and a dozen other optional
        # packages into this process first (some 0.5 s of CPU) to no use here: the server
        # already runs with foakit's
        if hasattr(distributed.utils, "_forkserver_preload_set"):
            distributed.utils._forkserver_preload_set = True
        distributed.utils.get_mp_context().set_forkserver_preload(_PRELOAD)

    @property
    def address(self) -> str:
        """The scheduler's address."""
        return self.client.scheduler.address

    @property
    def dashboard_link(self) -> str | None:
        """The dashboard's URL, None when the scheduler serves none."""
        if self.kind == "local" and not self._local_dashboard:
            return None
        try:
            info = self.client.scheduler_info()
        except Exception:  # a lost scheduler has no dashboard either
            return None
        if "dashboard" not in info.get("services", {}):
            return None
        return self.client.dashboard_link

    def n_threads(self) -> int:
        """Worker threads in the cluster now."""
        return int(sum(self.client.nthreads().values()))

    def close(self) -> None:
        """Close the client, and the LocalCluster when this object started it."""
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
        for name in ("_config", "_client_config"):
            config = getattr(self, name, None)
            if config is not None:
                config.__exit__(None, None, None)
                setattr(self, name, None)

    def __enter__(self) -> DaskCluster:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _has_bokeh() -> bool:
    return importlib.util.find_spec("bokeh") is not None


#: What the fork server of a ``local[:N]`` cluster imports before it forks the workers.
_PRELOAD = ["distributed", "foakit._dask_preload"]


def prestart(spec: str | os.PathLike) -> None:
    """For a ``local[:N]`` spec, start the fork server its workers are forked from now
    (:func:`_start_fork_server`), so that the server's loading overlaps what this process
    imports and reads before it opens the :class:`DaskCluster`; nothing for other specs,
    a bad spec (the cluster's opening reports it) or without Dask."""
    try:
        kind, _ = parse_dask_spec(spec)
    except ParameterError:
        return
    if kind == "local" and importlib.util.find_spec("distributed") is not None:
        _start_fork_server()


def _start_fork_server() -> None:
    """Start multiprocessing's fork server with foakit preloaded (:mod:`foakit._dask_preload`:
    Dask's worker modules, foakit's kernels loaded), so that every worker forked from it
    inherits them instead of loading them itself.  Started before this process imports
    Dask and starts the scheduler, it does its some 1 s of loading on another core
    meanwhile (the server listens from its start and serves once loaded)."""
    import multiprocessing
    import multiprocessing.forkserver

    multiprocessing.get_context("forkserver").set_forkserver_preload(_PRELOAD)
    multiprocessing.forkserver.ensure_running()


def open_cluster(dask: Any) -> tuple[DaskCluster | None, Any]:
    """``(owned, client)`` for a ``dask=`` argument: a :class:`DaskCluster` made here
    (the caller closes it) for a spec, None for a cluster or client given open."""
    if isinstance(dask, DaskCluster):
        return None, dask.client
    if isinstance(dask, (str, os.PathLike)):
        own = DaskCluster(dask)
        return own, own.client
    if hasattr(dask, "submit") and hasattr(dask, "nthreads"):  # a distributed.Client
        return None, dask
    raise ParameterError(f"dask={dask!r} must be a spec string, a DaskCluster or a "
                         "distributed.Client")


# Worker side ------------------------------------------------------------------------------

_READY: set[str] = set()


def _run_task(work: Callable, batches: list[list], init: Callable | None,
              init_key: str) -> tuple[list[tuple], float]:
    """A task: ``work`` over each batch, each batch's exception caught apart.

    Returns ``([("ok", results) | ("error", type name, message, exception or None)],
    compute seconds)``; the exception travels only when it pickles.
    """
    if init_key not in _READY:
        if init is not None:
            init()  # once per worker process: the local pool's initializer
        # A worker's heap (Dask, Tornado, Numba's registries, the kernels) is some 10^5
        # long-lived objects that every full garbage collection walks while the clips'
        # arrays come and go; frozen, they are left out (as in the local pool's forked
        # workers, see foakit.pool).
        gc.freeze()
        _READY.add(init_key)
    t0 = time.perf_counter()
    out: list[tuple] = []
    for b in batches:
        try:
            out.append(("ok", work(b)))
        except Exception as exc:
            try:
                pickle.dumps(exc)
                sent = exc
            except Exception:
                sent = None
            out.append(("error", type(exc).__name__, str(exc), sent))
    return out, time.perf_counter() - t0


# Client side ------------------------------------------------------------------------------

@dataclass
class _Task:
    batches: list[list]
    stage: int  # 0: grouped batches, 1: one item, 2: a suspect run alone


def run_batches_dask(
    batches: deque[list],
    work: Callable[[list], list],
    finish: Callable[[list], None],
    failed: Callable[[Any, str], Any],
    *,
    cluster: Any,
    in_flight: int | None = None,
    idle: Callable[[], bool] | None = None,
    initializer: Callable[[], None] | None = None,
    reraise: tuple[type[BaseException], ...] = (),
    target_task_s: float | None = None,
) -> RunStats:
    """Run every batch of ``batches`` through ``work`` on a Dask cluster.

    The contract of :func:`foakit.pool.run_batches` (every item in exactly one ``finish``
    call, with its result or its ``failed`` record; ``finish`` once per batch; ``idle``
    while waiting and until it returns False at the end; ``reraise`` stops the run), with
    the batches run as Dask tasks (see the module docstring).

    Parameters
    ----------
    batches, work, finish, failed, idle, reraise
        As for :func:`foakit.pool.run_batches`; ``work`` and its arguments are pickled
        to the workers (cloudpickle), so it must be importable there (foakit installed on
        every worker).
    cluster : str, PathLike, DaskCluster or distributed.Client
        Where to run (see :func:`open_cluster`); a spec opens a cluster for this call.
    in_flight : int, optional
        Tasks submitted and not yet finished at the most (default twice the cluster's
        worker threads, read again as workers come and go).
    initializer : callable, optional
        Run once in every worker process before its first task here (picklable).
    target_task_s : float, optional
        Seconds of work a task is grown to (default the cluster's
        :attr:`DaskCluster.target_task_s`, else :data:`TARGET_TASK_S`).

    Returns
    -------
    RunStats
        Also kept as ``cluster.last_run`` when ``cluster`` is a :class:`DaskCluster`.

    Raises
    ------
    ParameterError
        ``in_flight`` below 1 or ``target_task_s`` not above 0.
    ClusterError
        The scheduler was lost (the run can be resumed).
    """

    if in_flight is not None and in_flight < 1:
        raise ParameterError(f"{in_flight=} must be >= 1")
    if target_task_s is None:
        target_task_s = getattr(cluster, "target_task_s", TARGET_TASK_S)
    if not target_task_s > 0:
        raise ParameterError(f"{target_task_s=} must be > 0")
    owned, client = open_cluster(cluster)
    try:
        import cloudpickle
        import distributed
        from distributed import as_completed

        stats = RunStats()
        t_start = time.perf_counter()
        # the same initializer (same function and arguments) runs once per worker process
        # across runs on a long-lived cluster
        init_key = hashlib.sha1(cloudpickle.dumps(initializer)).hexdigest()
        threads = _Threads(client)
        ac = as_completed(loop=client.loop)
        inflight: dict[Any, _Task] = {}
        singles: deque[list] = deque()  # items of killed tasks, each run alone
        suspects: deque[list] = deque()  # items killed alone too: run with nothing else
        per_batch_s: list[float] = [0.0, 0.0]  # measured compute seconds, batches

        def depth() -> int:
            return in_flight if in_flight is not None else max(2, 2 * threads.get())

        def group_size() -> int:
            if not per_batch_s[1] or not per_batch_s[0]:
                return 1
            want = target_task_s / (per_batch_s[0] / per_batch_s[1])
            spread = len(batches) // max(1, 2 * threads.get())
            return max(1, min(int(round(want)), spread))

        def submit(group: list[list], stage: int) -> None:
            fut = client.submit(_run_task, work, group, initializer, init_key,
                                key=f"foakit-batches-{uuid.uuid4().hex}", pure=False)
            inflight[fut] = _Task(group, stage)
            ac.add(fut)
            stats.group_sizes.append(len(group))

        def top_up() -> None:
            while len(inflight) < depth() and (batches or singles):
                if singles:
                    submit([singles.popleft()], 1)
                else:
                    g = group_size()
                    submit([batches.popleft() for _ in range(min(g, len(batches)))], 0)
            if not inflight and not batches and not singles and suspects:
                submit([suspects.popleft()], 2)  # alone: a death here names its item

        def deliver(results: list) -> None:
            t0 = time.perf_counter()
            finish(results)
            stats.finish_s += time.perf_counter() - t0

        def handle(fut: Any, task: _Task) -> None:
            stats.tasks += 1
            try:
                outcomes, compute_s = fut.result()
            except distributed.KilledWorker:
                stats.killed += 1
                items = [[item] for b in task.batches for item in b]
                if task.stage == 0:
                    singles.extend(items)
                elif task.stage == 1:
                    suspects.extend(items)
                else:
                    deliver([failed(task.batches[0][0], WORKER_DIED)])
                return
            except (cf.CancelledError, asyncio.CancelledError) as exc:
                raise ClusterError(f"the Dask cluster {_where(client)} cancelled a task "
                                   f"(scheduler lost?): {exc}") from None
            except reraise:
                raise
            except Exception as exc:  # the task itself could not run (not the items)
                msg = f"internal error: {type(exc).__name__}: {exc}"
                for b in task.batches:
                    deliver([failed(item, msg) for item in b])
                return
            if task.stage == 0:
                per_batch_s[0] += compute_s
                per_batch_s[1] += len(task.batches)
            stats.compute_s += compute_s
            for b, outcome in zip(task.batches, outcomes, strict=True):
                stats.batches += 1
                if outcome[0] == "ok":
                    deliver(outcome[1])
                    continue
                _, name, message, exc = outcome
                if exc is not None and isinstance(exc, reraise):
                    raise exc
                deliver([failed(item, f"internal error: {name}: {message}") for item in b])

        try:
            while True:
                top_up()
                if not inflight:
                    if batches or singles or suspects:
                        continue
                    if idle is None or not idle():
                        break
                    continue
                if idle is not None:
                    while not ac.has_ready() and idle():
                        top_up()
                fut = next(ac)
                handle(fut, inflight.pop(fut))
        finally:
            if inflight:  # stopped by an error: free the cluster of this run's tasks
                try:
                    client.cancel(list(inflight))
                except Exception:  # a lost scheduler has nothing left to cancel
                    pass
        stats.wall_s = time.perf_counter() - t_start
        if isinstance(cluster, DaskCluster):
            cluster.last_run = stats
        return stats
    finally:
        if owned is not None:
            owned.close()


class _Threads:
    """The cluster's worker thread count, asked of the scheduler at most every 2 s."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.n = 0
        self.at = -math.inf

    def get(self) -> int:
        now = time.monotonic()
        if now - self.at > 2.0:
            try:
                self.n = int(sum(self.client.nthreads().values()))
            except Exception:  # keep the last count; a lost scheduler fails the futures
                pass
            self.at = now
        return self.n


def _where(client: Any) -> str:
    try:
        return str(client.scheduler.address)
    except Exception:
        return "(unknown address)"
