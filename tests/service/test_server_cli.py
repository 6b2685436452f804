"""`rewardkit serve`: the missing extra, bad configuration, and what reaches uvicorn."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from rewardkit.cli import main

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
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(app=app, **kw))
    monkeypatch.setenv("REWARDKIT_SERVER_TOKEN", "from-env")
    argv = ["serve", "--config", str(QA), "--port", "9001", "--max-concurrent", "2"]
    assert main(argv) == 0
    assert (seen["host"], seen["port"]) == ("127.0.0.1", 9001)
    assert seen["app"].title == "rewardkit"


def test_public_host_without_token_warns(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    assert main(["serve", "--config", str(QA), "--host", "0.0.0.0"]) == 0
    assert "without --token" in capsys.readouterr().err
