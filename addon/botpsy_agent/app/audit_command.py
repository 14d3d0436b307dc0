"""`botpsy-agent audit`: print the audit log, filtered.

    botpsy-agent audit                               everything, oldest first
    botpsy-agent audit --principal user:8d2f --since 2h
    botpsy-agent audit --decision deny --tool control_lock
    botpsy-agent audit --security --json             security events, as JSON lines

Only argparse is imported here; the reader loads when the command runs.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_FAILED = 1
KINDS = ("request", "action", "response", "refused")
DECISIONS = ("allow", "deny", "confirm", "none")
OUTCOMES = ("executed", "planned", "handed_off", "refused", "pending_confirmation", "failed")


def add_audit_command(commands: Any) -> None:
    """Register `audit` on the command line's subparsers."""
    audit = commands.add_parser(
        "audit", help="print the audit log (requests, decisions, outcomes), filtered"
    )
    audit.add_argument(
        "--file",
        type=Path,
        default=None,
        help="the log (default: $BOTPSY_DATA_DIR/audit/audit.jsonl, else /data/audit/…)",
    )
    audit.add_argument("--principal", help="a principal key or part of one, e.g. mqtt:panel")
    audit.add_argument("--decision", choices=DECISIONS, help="actions decided so")
    audit.add_argument("--tool", help="actions of this tool, e.g. control_lock")
    audit.add_argument("--entity", help="actions on an entity id or part of one, e.g. lock.")
    audit.add_argument("--outcome", choices=OUTCOMES, help="actions that ended so")
    audit.add_argument(
        "--kind", action="append", choices=KINDS, help="records of this kind (repeatable)"
    )
    audit.add_argument("--id", dest="request_id", help="the records of one request id")
    audit.add_argument("--since", help="from this time: 30m, 2h, 7d ago, or an ISO time (UTC)")
    audit.add_argument("--until", help="up to this time (same forms as --since)")
    audit.add_argument("--security", action="store_true", help="security events only")
    audit.add_argument("--json", action="store_true", help="print the records as JSON lines")
    audit.set_defaults(handler=run_audit)


def run_audit(args: argparse.Namespace) -> int:
    import json
    import sys

    from botpsy_agent.app.config import data_dir_from
    from botpsy_agent.audit import (
        AuditFilter,
        AuditReader,
        audit_path,
        format_record,
        parse_when,
        printable,
        printable_json,
    )

    path = args.file or audit_path(data_dir_from(os.environ))
    try:
        where = AuditFilter(
            principal=args.principal,
            decision=args.decision,
            tool=args.tool,
            entity=args.entity,
            outcome=args.outcome,
            kinds=frozenset(args.kind or ()),
            request_id=args.request_id,
            since=parse_when(args.since) if args.since else None,
            until=parse_when(args.until) if args.until else None,
            security_only=args.security,
        )
    except ValueError as err:
        print(f"audit: {printable(str(err))}", file=sys.stderr)
        return EXIT_FAILED
    reader = AuditReader(path)
    if not reader.exists():
        print(f"audit: no audit log at {path}", file=sys.stderr)
        return EXIT_FAILED
    shown = 0
    for record in reader.records(where):
        if args.json:
            print(printable_json(json.dumps(record, ensure_ascii=False)))
        else:
            print(format_record(record))
        shown += 1
    if reader.skipped:
        print(f"audit: skipped {reader.skipped} unreadable line(s)", file=sys.stderr)
    print(f"audit: {shown} record(s)", file=sys.stderr)
    return EXIT_OK
