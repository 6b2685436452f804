"""`rewardkit serve`: the missing extra, bad configuration, and what reaches uvicorn."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from rewardkit.cli import main
from rewardkit.cli import serve as serve_cli

QA = Path(__file__).parents[2] / "examples" / "qa-eval"


def test_missing_extra_prints_the_install_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert main(["serve", "--config", str(QA)]) == 2
    err = capsys.readouterr().err
    assert "uvicorn is missing" in err
    assert "pip install 'rewardkit[server]'" in err


def test_unknown_config_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--config", str(tmp_path / "nope")]) == 2
    assert "config not found" in capsys.readouterr().err


def test_bad_limit_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--config", str(QA), "--max-batch", "0"]) == 2
    assert "max_batch must be at least 1 (got 0)" in capsys.readouterr().err


def test_options_reach_uvicorn(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def run(app: Any, host: str, port: int, *, access_log: bool) -> int:
        seen.update(app=app, host=host, port=port, access_log=access_log)
        return 0

    monkeypatch.setattr(serve_cli, "_run", run)
    monkeypatch.setenv("REWARDKIT_SERVER_TOKEN", "from-env")
    monkeypatch.setenv("REWARDKIT_SERVER_BODY_TIMEOUT", "2.5")
    argv = ["serve", "--config", str(QA), "--port", "9001", "--max-concurrent", "2"]
    assert main([*argv, "--max-json-depth", "7"]) == 0
    assert (seen["host"], seen["port"], seen["access_log"]) == ("127.0.0.1", 9001, False)
    app = seen["app"]
    assert app.title == "rewardkit"
    assert app.state.max_json_depth == 7
    (guard,) = app.user_middleware
    assert (guard.kwargs["token"], guard.kwargs["timeout"]) == ("from-env", 2.5)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.1.2.3", "example.org"])
def test_a_public_host_needs_a_workspace_root(
    host: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(serve_cli, "_run", lambda *a, **k: pytest.fail("must not start"))
    assert main(["serve", "--config", str(QA), "--host", host, "--token", "t"]) == 2
    assert capsys.readouterr().err == (
        f"rewardkit serve: error: --workspace-root is required with --host {host} (not "
        "loopback); pass the directory that holds the samples' workspaces, e.g. "
        "--workspace-root /data/runs\n"
    )


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1"])
def test_loopback_needs_no_workspace_root(host: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serve_cli, "_run", lambda *a, **k: 0)
    assert main(["serve", "--config", str(QA), "--host", host]) == 0


def test_a_missing_workspace_root_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["serve", "--config", str(QA), "--workspace-root", str(tmp_path / "nope")]
    assert main(argv) == 2
    assert "workspace_root is not a directory; pass an existing one" in capsys.readouterr().err


def test_public_host_without_token_warns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(serve_cli, "_run", lambda *a, **k: 0)
    argv = ["serve", "--config", str(QA), "--host", "0.0.0.0", "--workspace-root", str(tmp_path)]
    assert main(argv) == 0
    assert "without --token" in capsys.readouterr().err


@pytest.mark.parametrize("how", ["flag", "env"])
def test_an_empty_token_exits_2(
    how: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(serve_cli, "_run", lambda *a, **k: pytest.fail("must not start"))
    argv = ["serve", "--config", str(QA)]
    if how == "env":
        monkeypatch.setenv("REWARDKIT_SERVER_TOKEN", "")
    else:
        argv += ["--token", ""]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "rewardkit serve: error: --token is empty (an unset $TOKEN? REWARDKIT_SERVER_TOKEN set "
        "to ''?); pass a non-empty secret, or leave both out to serve without a token\n"
    )


@pytest.mark.parametrize("logged", [False, True], ids=["quiet", "access-log"])
def test_serve_says_where_it_listens(logged: bool) -> None:
    """The URL is printed once the port is bound (`--port 0`: the one the system chose); a
    line per request only with `--access-log`."""
    import subprocess
    import urllib.request

    pytest.importorskip("uvicorn")
    command = [sys.executable, "-m", "rewardkit", "serve", "--config", str(QA), "--port", "0"]
    with subprocess.Popen(
        command + ["--access-log"] * logged,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            assert proc.stderr is not None
            line = proc.stderr.readline()
            assert line.startswith("rewardkit serve: listening on http://127.0.0.1:"), line
            url = line.split()[4]
            with urllib.request.urlopen(f"{url}/healthz", timeout=30) as answer:
                assert answer.status == 200
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        assert proc.stdout is not None
        assert ('"GET /healthz HTTP/1.1" 200' in proc.stdout.read()) is logged


def test_answers_are_not_held_back_by_nagle() -> None:
    # a listening socket without IPPROTO_TCP makes asyncio skip TCP_NODELAY on its
    # connections: each answer then waited for the client's delayed ACK (40 ms)
    import socket

    listening = serve_cli._listen("127.0.0.1", 0)
    try:
        assert listening.proto == socket.IPPROTO_TCP
    finally:
        listening.close()
