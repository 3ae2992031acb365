"""STARSS / DCASE SELD: FOA audio with 100 ms label CSVs (``docs/starss.md``).

* :mod:`.format`: label CSVs and per-source tracks (re-exported here).
* :mod:`.audit`: label audit (:func:`~.audit.audit_starss`).
* :mod:`.inject`: known label errors injected into a metadata folder, to measure the audit.
* :mod:`.synth`: STARSS-layout synthetic corpora.
* :mod:`.cli`: the ``starss`` sub-command of ``foakit audit``.
"""

from __future__ import annotations

from .format import (
    LABEL_HOP_S,
    LabelRow,
    SourceTrack,
    frame_times,
    metadata_files,
    read_label_csv,
    rows_to_tracks,
    tracks_to_rows,
    write_label_csv,
)

__all__ = [
    "LABEL_HOP_S",
    "LabelRow",
    "SourceTrack",
    "read_label_csv",
    "write_label_csv",
    "rows_to_tracks",
    "tracks_to_rows",
    "metadata_files",
    "frame_times",
]
