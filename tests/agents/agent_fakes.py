"""Helpers of the agent-judge tests: control of the fake CLIs, judge TOMLs, details."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any


class FakeAgents:
    """Controls the fake `claude` and `codex`: what they do, and what they were asked."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def script(self, *steps: dict[str, Any]) -> None:
        (self.root / "script.json").write_text(json.dumps(list(steps)))

    @property
    def entries(self) -> list[dict[str, Any]]:
        log = self.root / "calls.jsonl"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    @property
    def runs(self) -> list[dict[str, Any]]:
        return [e for e in self.entries if e.get("run")]


def judge_toml(judge: str = "claude-code", extra: str = "", criteria: int = 2) -> str:
    """A judge TOML: `[judge]` with `extra` lines, then `criteria` binary criteria."""
    text = f'[judge]\njudge = "{judge}"\ntimeout = 20\n{textwrap.dedent(extra)}\n'
    questions = ["Is the code correct?", "Is it readable?", "Is it tested?"]
    for q in questions[:criteria]:
        text += f'\n[[criterion]]\ndescription = "{q}"\n'
    return text


Run = Callable[..., tuple[dict[str, float], dict[str, Any]]]


def leaf(details: dict[str, Any], name: str = "quality") -> dict[str, Any]:
    """The detail of the leaf `name` (the only one, or a component of the root group)."""
    root = details["reward"]
    if root.get("kind") != "group":
        return root
    return next(c["detail"] for c in root["components"] if c["name"] == name)
