"""``foakit info``: versions, compute backends, devices, and why a backend is unavailable."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import platform
import sys

from .. import __version__

_PACKAGES = ("numpy", "scipy", "numba", "numba-cuda", "llvmlite", "soundfile", "pyloudnorm",
             "pyarrow", "cupy", "cupy-cuda12x", "cupy-cuda13x")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("info", help="versions, compute backends and GPU devices",
                       description="Print foakit's and its libraries' versions, which compute "
                       "backends are available (and why not), and the CUDA devices found.")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _numba_cuda() -> dict:
    """Whether Numba can run CUDA kernels, without raising."""
    out: dict = {"available": False, "reason": None, "implementation": None,
                 "simulator": False}
    try:
        from numba import cuda
    except Exception as exc:
        out["reason"] = f"numba.cuda is not importable ({type(exc).__name__}: {exc})"
        return out
    from numba.core import config

    out["simulator"] = bool(config.ENABLE_CUDASIM)
    out["implementation"] = getattr(cuda, "implementation", "built-in")
    try:
        ok = bool(cuda.is_available())
    except Exception as exc:
        ok, out["reason"] = False, f"{type(exc).__name__}: {exc}"
    out["available"] = ok
    if not ok and out["reason"] is None:
        err = cuda.cuda_error() if hasattr(cuda, "cuda_error") else None
        msg = " ".join(str(err).split())[:200] if err else ""
        out["reason"] = f"no CUDA driver or device ({msg})" if msg else "no CUDA device"
    return out


def _devices() -> list[dict]:
    """CUDA devices seen by CuPy (assumes CuPy imports and found a device)."""
    import cupy

    devs = []
    for i in range(cupy.cuda.runtime.getDeviceCount()):
        props = cupy.cuda.runtime.getDeviceProperties(i)
        with cupy.cuda.Device(i):
            free, total = cupy.cuda.runtime.memGetInfo()
        name = props["name"]
        devs.append({
            "id": i,
            "name": name.decode() if isinstance(name, bytes) else str(name),
            "compute_capability": f"{props['major']}.{props['minor']}",
            "memory_total_gib": round(total / 2**30, 2),
            "memory_free_gib": round(free / 2**30, 2),
        })
    return devs


def collect() -> dict:
    """Everything ``foakit info`` reports, as a JSON-able dict."""
    from ..backend import cuda_status

    info: dict = {
        "foakit": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": {name: _version(name) for name in _PACKAGES},
        "backends": {"cpu": {"available": True, "reason": "NumPy + Numba CPU kernels"}},
        "devices": [],
    }
    from ..signal.decode import mp3_support

    info["audio"] = mp3_support()
    ok, why = cuda_status()
    nc = _numba_cuda()
    reason = why
    if ok and not nc["available"]:
        ok, reason = False, f"CuPy is fine but Numba CUDA is not: {nc['reason']}"
    elif ok:
        import cupy

        reason = (f"CuPy {cupy.__version__} (CUDA runtime "
                  f"{cupy.cuda.runtime.runtimeGetVersion()}), Numba CUDA "
                  f"({nc['implementation']}), {why}")
    info["backends"]["cuda"] = {"available": ok, "reason": reason}
    info["numba_cuda"] = nc
    if cuda_status()[0]:
        try:
            info["devices"] = _devices()
        except Exception as exc:
            info["devices_error"] = f"{type(exc).__name__}: {exc}"
    info["backends"]["auto"] = {"available": True,
                                "reason": f"resolves to {'cuda' if ok else 'cpu'}"}
    return info


def run(args: argparse.Namespace) -> int:
    info = collect()
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    out = sys.stdout
    print(f"foakit {info['foakit']} (Python {info['python']}, {info['platform']})", file=out)
    print("packages:", file=out)
    for name, ver in info["packages"].items():
        if ver is not None or name in ("numpy", "scipy", "numba", "soundfile", "pyarrow",
                                       "cupy"):
            print(f"  {name:<14} {ver or 'not installed'}", file=out)
    a = info["audio"]
    print(f"audio: libsndfile {a['libsndfile']}, MP3 "
          f"{'decodes' if a['mp3'] else 'unavailable: ' + str(a['reason'])}", file=out)
    print("backends:", file=out)
    for name in ("cpu", "cuda", "auto"):
        b = info["backends"][name]
        state = "available" if b["available"] else "unavailable"
        print(f"  {name:<5} {state}: {b['reason']}", file=out)
    nc = info["numba_cuda"]
    sim = " (CUDA simulator: NUMBA_ENABLE_CUDASIM=1)" if nc["simulator"] else ""
    print(f"numba.cuda: {nc['implementation'] or '-'}, "
          f"{'available' if nc['available'] else 'unavailable: ' + str(nc['reason'])}{sim}",
          file=out)
    if info["devices"]:
        print("devices:", file=out)
        for d in info["devices"]:
            print(f"  [{d['id']}] {d['name']} (compute {d['compute_capability']}), "
                  f"{d['memory_total_gib']} GiB, {d['memory_free_gib']} GiB free", file=out)
    elif "devices_error" in info:
        print(f"devices: error: {info['devices_error']}", file=out)
    else:
        print("devices: none", file=out)
    return 0
