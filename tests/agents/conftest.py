"""Fake agent CLIs on PATH, and a runner for a tests directory with agent judge TOMLs."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

import rewardkit as rk

from .agent_fakes import FakeAgents, Run

FAKE = Path(__file__).with_name("fake_cli.py")


@pytest.fixture
def agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeAgents:
    """`claude`, `codex` and `fx` on PATH (nothing else from the real PATH but /usr/bin, /bin)."""
    bin_dir, ctl, home = tmp_path / "bin", tmp_path / "ctl", tmp_path / "home"
    for d in (bin_dir, ctl, home):
        d.mkdir()
    for name in ("claude", "codex", "fx"):
        exe = bin_dir / name
        exe.write_text(f"#!{sys.executable}\n" + FAKE.read_text())
        exe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.setenv("FAKE_AGENT_DIR", str(ctl))
    monkeypatch.setenv("REWARDKIT_AGENT_ENV", "FAKE_AGENT_DIR,FAKE_VERSION")  # the fakes' own
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("REWARDKIT_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.delenv("CODEX_AUTH_JSON", raising=False)
    monkeypatch.delenv("REWARDKIT_FORCE_SUBSCRIPTION", raising=False)
    return FakeAgents(ctl)


@pytest.fixture
def run_task(tmp_path: Path) -> Run:
    """`run_task({"quality.toml": text, ...}, **run_kwargs)` → (rewards, details)."""

    def run(tests: dict[str, str], **kw: Any) -> tuple[dict[str, float], dict[str, Any]]:
        tests_dir, ws = tmp_path / "tests", tmp_path / "ws"
        for d in (tests_dir, ws / "src"):
            d.mkdir(parents=True, exist_ok=True)
        (ws / "main.py").write_text("print('hello')\n")
        for name, text in tests.items():
            (tests_dir / name).write_text(text)
        out = tmp_path / "out" / "reward.json"
        rewards = rk.run(tests_dir, workspace=ws, output=out, **kw)
        return rewards, json.loads(out.with_name("reward-details.json").read_text())

    return run
