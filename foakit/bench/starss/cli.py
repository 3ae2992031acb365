"""The ``starss`` sub-command: ``foakit audit starss --audio A --metadata M -o DIR``.

Exit status: 0 every file audited, 1 some files failed (listed in ``DIR/summary.json`` and
on stderr), 2 usage error.
"""

from __future__ import annotations

import argparse
import sys

from ...cli.audit import add_audit_options, report_audit
from ...cli.common import open_dask, require_counts


def add_audit(sub: argparse._SubParsersAction) -> None:
    """``foakit audit starss``."""
    t = sub.add_parser("starss", help="STARSS / DCASE: label CSVs and FOA audio",
                       description="Audit STARSS / DCASE label CSVs against their audio.")
    t.add_argument("--audio", required=True, metavar="DIR", help="FOA audio folder")
    t.add_argument("--metadata", required=True, metavar="DIR", help="label CSV folder")
    add_audit_options(t)
    t.set_defaults(func=_run_audit)


def _run_audit(args: argparse.Namespace) -> int:
    import os

    from ...audit.checkpoint import ESTIMATES_DIR
    from .audit import audit_starss

    if (bad := require_counts(args, "foakit audit")) is not None:
        return bad
    for name in ("audio", "metadata"):
        if not os.path.isdir(getattr(args, name)):
            print(f"foakit audit: error: --{name} {getattr(args, name)}: no such folder",
                  file=sys.stderr)
            return 2
    with open_dask(args, "foakit audit") as cluster:
        result = audit_starss(args.audio, args.metadata, channel_order=args.channel_order,
                              normalisation=args.normalisation,
                              workers=args.workers, progress=not args.no_progress,
                              estimates_dir=os.path.join(args.out, ESTIMATES_DIR),
                              retry_errors=args.retry_errors, dask=cluster)
    return report_audit(args, result)
