"""`rewardkit serve --config PATH`: the HTTP reward service (extra `server`)."""

from __future__ import annotations

import argparse
import gc
import ipaddress
import os
import socket
import sys
from pathlib import Path
from typing import Any

from rewardkit.core._errors import ConfigError

__all__ = ["INSTALL_HINT", "build_parser", "main"]

EXIT_OK, EXIT_CONFIG = 0, 2
INSTALL_HINT = "pip install 'rewardkit[server]'"


def build_parser() -> argparse.ArgumentParser:
    from rewardkit.server import (
        DEFAULT_BODY_TIMEOUT,
        DEFAULT_DEADLINE,
        DEFAULT_MAX_BATCH,
        DEFAULT_MAX_JSON_DEPTH,
    )
    from rewardkit.server import DEFAULT_MAX_BODY_BYTES as DEFAULT_MAX_BODY

    env = os.environ.get
    parser = argparse.ArgumentParser(
        prog="rewardkit serve",
        description="Serve a reward over HTTP: POST /score, /score/batch, /validate, and "
        "/get_reward (OpenRLHF's remote reward model); GET /healthz; the OpenAPI schema at "
        "/openapi.json.",
        epilog=f"exit codes: {EXIT_OK} stopped; {EXIT_CONFIG} bad arguments, bad configuration, "
        f"the port in use, or the server extra missing ({INSTALL_HINT}).",
    )
    parser.add_argument(
        "--config", type=Path, required=True, help="a tests directory or an eval.yaml"
    )
    parser.add_argument(
        "--host",
        default=env("REWARDKIT_SERVER_HOST", "127.0.0.1"),
        help="interface to bind (env REWARDKIT_SERVER_HOST; default 127.0.0.1); any but "
        "loopback needs --workspace-root",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=int(env("REWARDKIT_SERVER_PORT", "8000")),
        help="port (env REWARDKIT_SERVER_PORT; default 8000)",
    )
    parser.add_argument(
        "--token",
        default=env("REWARDKIT_SERVER_TOKEN"),
        help="require 'Authorization: Bearer TOKEN', checked before the body is read "
        "(env REWARDKIT_SERVER_TOKEN); must not be empty",
    )
    parser.add_argument(
        "--workspace-root",
        type=Path,
        default=env("REWARDKIT_SERVER_WORKSPACE_ROOT"),
        help="every sample's workspace must resolve inside this directory, else 400 "
        "(env REWARDKIT_SERVER_WORKSPACE_ROOT); required unless --host is loopback",
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
        "--body-timeout",
        type=float,
        default=float(env("REWARDKIT_SERVER_BODY_TIMEOUT") or DEFAULT_BODY_TIMEOUT),
        help="seconds to receive a whole request body, else 408 "
        f"(env REWARDKIT_SERVER_BODY_TIMEOUT; default {DEFAULT_BODY_TIMEOUT:g})",
    )
    parser.add_argument(
        "--max-json-depth",
        type=int,
        default=DEFAULT_MAX_JSON_DEPTH,
        help="arrays and objects nested deeper in a body, else 400 "
        f"(default {DEFAULT_MAX_JSON_DEPTH})",
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
        help=f"seconds per request, else 504 and its scoring processes are ended (default "
        f"{DEFAULT_DEADLINE:g}; 0: none)",
    )
    parser.add_argument(
        "--sample-deadline",
        type=float,
        default=float(env("REWARDKIT_DEADLINE") or 0) or None,
        help="seconds per sample, else an invalid result and its scoring process is ended "
        "(env REWARDKIT_DEADLINE)",
    )
    parser.add_argument(
        "--max-concurrent",
        type=int,
        default=int(env("REWARDKIT_WORKERS", "8")),
        help="scoring processes, so samples scored at once (env REWARDKIT_WORKERS; default 8)",
    )
    parser.add_argument(
        "--access-log",
        action="store_true",
        help="log a line per request on stdout (off by default: at a trainer's request rate "
        "it costs the server more than it tells)",
    )
    return parser


def main(argv: list[str]) -> int:
    """Run the service until interrupted; return the exit code."""
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        print(
            f"rewardkit serve: error: the HTTP server needs the 'server' extra ({exc.name} is "
            f"missing). Install it with:\n    {INSTALL_HINT}",
            file=sys.stderr,
        )
        return EXIT_CONFIG
    os.environ.setdefault("REWARDKIT_JAIL_COMMANDS", "1")  # as in `rewardkit score`
    from rewardkit.batch import load
    from rewardkit.server import create_app

    args = build_parser().parse_args(argv)
    try:
        _check_exposure(args)
        if not args.config.exists():
            raise ConfigError(
                "config not found. Pass a tests directory or an eval.yaml.", path=args.config
            )
        scorer = load(args.config, max_concurrent=args.max_concurrent)
        app = create_app(
            scorer,
            token=args.token,
            max_body_bytes=args.max_body_bytes,
            body_timeout=args.body_timeout,
            max_json_depth=args.max_json_depth,
            max_batch=args.max_batch,
            deadline=args.deadline or None,
            sample_deadline=args.sample_deadline,
            validate_root=args.validate_root,
            workspace_root=args.workspace_root,
        )
    except ConfigError as exc:
        print(f"rewardkit serve: error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    if args.token is None and not _is_loopback(args.host):
        print(
            f"rewardkit serve: warning: listening on {args.host} without --token; anyone who "
            "can reach it can score samples",
            file=sys.stderr,
        )
    return _run(app, args.host, args.port, access_log=args.access_log)


def _run(app: Any, host: str, port: int, *, access_log: bool) -> int:
    """Serve `app` until interrupted; a port that cannot be bound is a configuration error."""
    import uvicorn

    try:
        listening = _listen(host, port)
    except OSError as exc:
        print(
            f"rewardkit serve: error: cannot listen on {host}:{port} "
            f"({exc.strerror or exc}). Pick another --port, or stop what holds it.",
            file=sys.stderr,
        )
        return EXIT_CONFIG
    bound = listening.getsockname()[1]  # --port 0: the port the system chose
    shown = f"[{host}]" if ":" in host else host
    print(
        f"rewardkit serve: listening on http://{shown}:{bound} (POST /score, /docs; Ctrl-C stops)",
        file=sys.stderr,
        flush=True,
    )
    config = uvicorn.Config(app, host=host, port=bound, log_level="info", access_log=access_log)
    gc.freeze()  # what start-up made lives as long as the server: no collection walks it again
    uvicorn.Server(config).run(sockets=[listening])
    return EXIT_OK


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket bound now, so a port in use is a clear error, not a late crash."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, or asyncio leaves Nagle on for the accepted connections: every
    # answer then waits out the client's delayed ACK (40 ms on Linux)
    listening = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((host, port))
        listening.listen(2048)
    except OSError:
        listening.close()
        raise
    return listening


def _check_exposure(args: argparse.Namespace) -> None:
    """An empty token, or a non-loopback address without a workspace root, is an error."""
    if args.token is not None and not args.token.strip():
        raise ConfigError(
            "--token is empty (an unset $TOKEN? REWARDKIT_SERVER_TOKEN set to ''?); pass a "
            "non-empty secret, or leave both out to serve without a token"
        )
    if args.workspace_root is None and not _is_loopback(args.host):
        raise ConfigError(
            f"--workspace-root is required with --host {args.host} (not loopback); pass the "
            "directory that holds the samples' workspaces, e.g. --workspace-root /data/runs"
        )


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve anywhere
        return False
