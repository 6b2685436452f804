"""`rewardkit serve --config PATH`: the HTTP reward service (extra `server`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rewardkit._errors import ConfigError

__all__ = ["INSTALL_HINT", "build_parser", "main"]

EXIT_OK, EXIT_CONFIG = 0, 2
INSTALL_HINT = "pip install 'rewardkit[server]'"


def build_parser() -> argparse.ArgumentParser:
    from rewardkit.server import DEFAULT_DEADLINE, DEFAULT_MAX_BATCH
    from rewardkit.server import DEFAULT_MAX_BODY_BYTES as DEFAULT_MAX_BODY

    env = os.environ.get
    parser = argparse.ArgumentParser(
        prog="rewardkit serve",
        description="Serve a reward over HTTP: POST /score, /score/batch, /validate; "
        "GET /healthz; the OpenAPI schema at /openapi.json.",
        epilog=f"exit codes: {EXIT_OK} stopped; {EXIT_CONFIG} bad arguments, bad configuration "
        f"or the server extra missing ({INSTALL_HINT}).",
    )
    parser.add_argument(
        "--config", type=Path, required=True, help="a tests directory or an eval.yaml"
    )
    parser.add_argument(
        "--host",
        default=env("REWARDKIT_SERVER_HOST", "127.0.0.1"),
        help="interface to bind (env REWARDKIT_SERVER_HOST; default 127.0.0.1)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=int(env("REWARDKIT_SERVER_PORT", "8000")),
        help="port (env REWARDKIT_SERVER_PORT; default 8000)",
    )
    parser.add_argument(
        "--token",
        default=env("REWARDKIT_SERVER_TOKEN") or None,
        help="require 'Authorization: Bearer TOKEN' (env REWARDKIT_SERVER_TOKEN)",
    )
    parser.add_argument(
        "--max-batch",
        type=int,
        default=DEFAULT_MAX_BATCH,
        help=f"samples per /score/batch request, else 413 (default {DEFAULT_MAX_BATCH})",
    )
    parser.add_argument(
        "--max-body-bytes",
        type=int,
        default=DEFAULT_MAX_BODY,
        help=f"request body size, else 413 (default {DEFAULT_MAX_BODY})",
    )
    parser.add_argument(
        "--validate-root",
        type=Path,
        default=None,
        help="let POST /validate load configs inside this directory (it imports their Python "
        "files); off by default",
    )
    parser.add_argument(
        "--deadline",
        type=float,
        default=DEFAULT_DEADLINE,
        help=f"seconds per request, else 504 (default {DEFAULT_DEADLINE:g}; 0: none)",
    )
    parser.add_argument(
        "--sample-deadline",
        type=float,
        default=float(env("REWARDKIT_DEADLINE") or 0) or None,
        help="seconds per sample, else an invalid result (env REWARDKIT_DEADLINE)",
    )
    parser.add_argument(
        "--max-concurrent",
        type=int,
        default=int(env("REWARDKIT_WORKERS", "8")),
        help="samples scored at once (env REWARDKIT_WORKERS; default 8)",
    )
    return parser


def main(argv: list[str]) -> int:
    """Run the service until interrupted; return the exit code."""
    try:
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError as exc:
        print(
            f"rewardkit serve: error: the HTTP server needs the 'server' extra ({exc.name} is "
            f"missing). Install it with:\n    {INSTALL_HINT}",
            file=sys.stderr,
        )
        return EXIT_CONFIG
    from rewardkit.batch import load
    from rewardkit.server import create_app

    args = build_parser().parse_args(argv)
    try:
        if not args.config.exists():
            raise ConfigError(
                "config not found. Pass a tests directory or an eval.yaml.", path=args.config
            )
        scorer = load(
            args.config, deadline=args.sample_deadline, max_concurrent=args.max_concurrent
        )
        app = create_app(
            scorer,
            token=args.token,
            max_body_bytes=args.max_body_bytes,
            max_batch=args.max_batch,
            deadline=args.deadline or None,
            validate_root=args.validate_root,
        )
    except ConfigError as exc:
        print(f"rewardkit serve: error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    if args.token is None and args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"rewardkit serve: warning: listening on {args.host} without --token; anyone who "
            "can reach it can score and read configs by path",
            file=sys.stderr,
        )
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    return EXIT_OK
