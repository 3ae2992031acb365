"""Dask workers write their own outputs into OUT (Parquet parts, record files) and the
client commits them: what a worker lost mid-task leaves is never read as complete, is
removed at the end of the run or on resume, and the outputs equal a local run's."""

from __future__ import annotations

import json
from collections import deque
from functools import partial

import pytest

pytest.importorskip("distributed")

from foakit.corpus import FRAMES_DIR, _work, analyze_corpus, analyze_file, read_frames  # noqa: E402
from foakit.dist import DaskCluster, run_batches_dask  # noqa: E402
from foakit.outdir import (  # noqa: E402
    RECORDS_DIR,
    OutputUnwritable,
    _work_write,
    _write_batch,
)

from .outputs import make_foa_corpus, same_outputs  # noqa: E402
from .workers import _failed  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    with DaskCluster("local:2", dashboard=False) as c:
        yield c


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """10 clips and a broken file, and the local pool's outputs for them."""
    root = tmp_path_factory.mktemp("dask_outputs")
    make_foa_corpus(root / "audio", 10, duration=2.0)
    (root / "audio" / "broken.wav").write_bytes(b"RIFF....WAVEjunk")
    analyze_corpus(root / "audio", root / "local", workers=1, progress=False, batch_size=3)
    return root


def _paths(audio):
    return sorted(str(p.relative_to(audio)) for p in audio.rglob("*.wav"))


def _referenced(out):
    lines = (out / "clips.jsonl").read_text().splitlines()
    return {json.loads(line)["frames_part"] for line in lines} - {None}


def _lost_worker_leftovers(out, audio, path):
    """What a worker killed mid-task leaves in OUT: a complete part and record file of a
    batch whose result never reached the client, and a torn temporary part."""
    written = _write_batch(str(out), [analyze_file(str(audio), path)])
    (out / FRAMES_DIR / ".part-torn.parquet.tmp").write_bytes(b"PAR1 torn")
    lines = (out / RECORDS_DIR / written[0].records).read_text().splitlines()
    return json.loads(lines[0])["frames_part"]


def test_workers_write_the_parts_and_the_client_commits_them(cluster, corpus, tmp_path):
    out = tmp_path / "out"
    left = []

    def on_batch(n):
        if not left:  # mid-run, as a worker lost in a task would
            left.append(_lost_worker_leftovers(out, corpus / "audio", "a/clip001.wav"))

    s = analyze_corpus(corpus / "audio", out, dask=cluster, progress=False, batch_size=3,
                       on_batch=on_batch)
    assert (s.n_ok, s.n_error) == (10, 1)
    assert left and left[0] not in _referenced(out)
    assert not (out / RECORDS_DIR).exists()  # every record file committed or removed
    on_disk = {p.name for p in (out / FRAMES_DIR).iterdir()}
    assert on_disk == _referenced(out)  # the lost batch's part and the torn one are gone
    same_outputs(out, corpus / "local")


def test_resume_never_reads_a_part_its_client_did_not_commit(cluster, corpus, tmp_path):
    out = tmp_path / "out"
    audio = corpus / "audio"
    paths = _paths(audio)
    first, rest = paths[:5], paths[5:]
    analyze_corpus(audio, out, dask=cluster, progress=False, batch_size=2, files=first)
    # the client killed while a worker had written a batch of a clip not yet done
    (out / RECORDS_DIR).mkdir()
    stray = _lost_worker_leftovers(out, audio, rest[0])
    assert (out / FRAMES_DIR / stray).exists()
    got = read_frames(out)
    assert rest[0] not in set(got["path"].to_pylist())  # not read as complete
    s = analyze_corpus(audio, out, dask=cluster, progress=False, batch_size=2)
    assert s.n_skipped == len(first) and s.n_ok + s.n_error == len(rest)
    assert not (out / FRAMES_DIR / stray).exists()
    assert not (out / RECORDS_DIR).exists()
    lines = (out / "clips.jsonl").read_text().splitlines()
    done = [json.loads(line)["path"] for line in lines]
    assert len(done) == len(set(done)) == len(paths)  # every clip once
    same_outputs(out, corpus / "local")


def test_a_worker_that_cannot_write_out_stops_the_run(cluster, corpus, tmp_path):
    audio = corpus / "audio"
    nowhere = tmp_path / "not-mounted"
    work = partial(_work_write, partial(_work, str(audio), channel_order="ambix",
                                        params_d={}), str(nowhere))
    with pytest.raises(OutputUnwritable, match="not-mounted.*every worker sees"):
        run_batches_dask(deque([_paths(audio)[:2]]), work, lambda r: None, _failed,
                         cluster=cluster, reraise=(OutputUnwritable,))
    assert not nowhere.exists()


def _worker_settings():
    import dask

    return (dask.config.get("distributed.worker.profile.enabled"),
            dask.config.get("distributed.admin.tick.interval"))


def test_local_clusters_run_without_the_clock_driven_monitors():
    import dask

    from foakit.dist import LOCAL_CONFIG

    before = dask.config.get("distributed.worker.profile.enabled")
    with DaskCluster("local:1", dashboard=False) as dc:
        got = dc.client.run(_worker_settings)
        assert list(got.values()) == [(False, LOCAL_CONFIG["distributed.admin.tick.interval"])]
    assert dask.config.get("distributed.worker.profile.enabled") == before  # restored
