"""`botpsy-agent` / `python -m botpsy_agent`: the app's command line.

    serve    run the service (the app's main process)
    health   exit 0 when the service is ready (the image's HEALTHCHECK)
    audit    print the audit log, filtered

Each subcommand imports what it needs when it runs, so `health`, which the container
runs every few seconds, starts in milliseconds and never loads the model libraries.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
import sys

from botpsy_agent import __version__
from botpsy_agent.app import add_audit_command

EXIT_OK = 0
EXIT_FAILED = 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="botpsy-agent",
        description="BotPsy: a private local assistant for Home Assistant.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    serve = commands.add_parser("serve", help="run the service (the app's main process)")
    serve.add_argument(
        "--options",
        type=Path,
        default=Path("/data/options.json"),
        help="the app options file (default: %(default)s)",
    )
    serve.set_defaults(handler=_serve)

    health = commands.add_parser(
        "health", help="exit 0 when the model is loaded and MQTT and HA are connected"
    )
    health.add_argument(
        "--file",
        type=Path,
        default=None,
        help="the status file the service writes (default: $BOTPSY_RUN_DIR/health.json)",
    )
    health.add_argument(
        "--max-age",
        type=float,
        default=None,
        help="seconds after which the status file counts as stale (default: 60)",
    )
    health.set_defaults(handler=_health)

    doctor = commands.add_parser(
        "doctor", help="check options, MQTT, Home Assistant, model, policy, memory; say what to fix"
    )
    doctor.add_argument(
        "--options", type=Path, default=Path("/data/options.json"), help="the app options file"
    )
    doctor.set_defaults(handler=_doctor)

    models = commands.add_parser(
        "models", help="list the model files; --remove-others deletes all but the chosen one"
    )
    models.add_argument(
        "--options", type=Path, default=Path("/data/options.json"), help="the app options file"
    )
    models.add_argument(
        "--remove-others", action="store_true", help="delete every model file but the chosen one"
    )
    models.add_argument(
        "--unpin",
        action="store_true",
        help="forget the chosen file's pinned SHA-256: the next file of that name is trusted",
    )
    models.set_defaults(handler=_models)

    add_audit_command(commands)
    return parser


def _serve(args: argparse.Namespace) -> int:
    import asyncio
    import logging

    from botpsy_agent.app import serve
    from botpsy_agent.audit import PrintableFormatter

    handler = logging.StreamHandler()
    handler.setFormatter(  # arguments from requests cannot forge lines (issue 25, finding 10)
        PrintableFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S")
    )
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    return asyncio.run(serve(args.options))


def _doctor(args: argparse.Namespace) -> int:
    import asyncio

    from botpsy_agent.app import run_doctor

    return asyncio.run(run_doctor(args.options))


def _models(args: argparse.Namespace) -> int:
    import os

    from botpsy_agent.app import OptionsError, load_app_settings
    from botpsy_agent.weights import other_models, plan_model, remove_other_models, unpin

    try:
        settings = load_app_settings(args.options, os.environ)
    except OptionsError as err:
        print("\n".join(err.problems), file=sys.stderr)
        return EXIT_FAILED
    folder = settings.models_dir
    plan = plan_model(settings.model, folder, settings.data_dir)
    chosen = plan.path
    print(f"chosen: {chosen} ({'present' if chosen.exists() else 'not downloaded yet'})")
    if args.unpin:
        print(f"unpinned: {chosen.name}" if unpin(plan) else f"not pinned: {chosen.name}")
    others = (
        remove_other_models(folder, chosen) if args.remove_others else other_models(folder, chosen)
    )
    verb = "removed" if args.remove_others else "other"
    for path in others:
        print(
            f"{verb}: {path} ({path.stat().st_size / 1e6:.0f} MB)"
            if path.exists()
            else f"{verb}: {path}"
        )
    return EXIT_OK


def _health(args: argparse.Namespace) -> int:
    from botpsy_agent.app import HEALTH_MAX_AGE_S, check_health, default_health_path

    verdict = check_health(
        args.file or default_health_path(),
        max_age=HEALTH_MAX_AGE_S if args.max_age is None else args.max_age,
    )
    print(verdict.line())
    return EXIT_OK if verdict.healthy else EXIT_FAILED


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.handler(args)
    return code


def run() -> None:
    """Console-script entry point (`botpsy-agent`)."""
    sys.exit(main())


if __name__ == "__main__":
    run()
