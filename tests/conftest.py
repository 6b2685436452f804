"""Shared fixtures: a clean environment and tiny task trees written from dicts; and the
`timing` marker's switch (a speed figure runs only when asked for)."""

from __future__ import annotations

import json
import os
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

_PROVIDER_KEYS = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "TYPESAFE_API_KEY",
    # where the native model transport sends requests (see rewardkit.models._route)
    "ANTHROPIC_API_BASE",
    "ANTHROPIC_BASE_URL",
    "HOSTED_VLLM_API_BASE",
    "HOSTED_VLLM_API_KEY",
    "OPENAI_API_BASE",
    "OPENAI_BASE_URL",
)


TIMING_ENV = "REWARDKIT_TIMING"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--timing",
        action="store_true",
        help=f"also run the tests marked `timing` (speed figures; or set {TIMING_ENV}=1)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip `timing` tests unless asked for: on a shared or loaded machine a speed figure
    fails for reasons that are not ours. Bounds on hostile input's time are not marked."""
    if config.getoption("--timing") or os.environ.get(TIMING_ENV, "") not in ("", "0"):
        return
    skip = pytest.mark.skip(reason=f"a speed figure: run it with --timing or {TIMING_ENV}=1")
    for item in items:
        if item.get_closest_marker("timing") is not None:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("REWARDKIT_") or key in _PROVIDER_KEYS:
            monkeypatch.delenv(key)


Tree = Mapping[str, str]


def write_tree(root: Path, files: Tree) -> Path:
    """Write `{"relative/path": "text"}` under `root` (text is dedented)."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


@pytest.fixture
def task(tmp_path: Path) -> Callable[..., tuple[Path, Path]]:
    """`task(tests={...}, workspace={...})` → (tests_dir, workspace)."""

    def make(tests: Tree, workspace: Tree | None = None) -> tuple[Path, Path]:
        tests_dir = write_tree(tmp_path / "tests", tests)
        ws = write_tree(tmp_path / "ws", workspace or {})
        ws.mkdir(exist_ok=True)
        return tests_dir, ws

    return make


BATCH_CHECKS = """\
import rewardkit as rk
rk.file_contains('a.txt', 'yes')
rk.file_contains('a.txt', 'good')
"""


@pytest.fixture
def job(tmp_path: Path) -> tuple[Path, Path]:
    """For `rewardkit score`: a tests dir and 30 rollouts: rewards 1, 0.5 and 0, one invalid, two malformed."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "checks.py").write_text(BATCH_CHECKS)
    ws = ["yes good", "yes", "no"]
    for text in ws:
        (tmp_path / text).mkdir()
        (tmp_path / text / "a.txt").write_text(text)
    lines = [json.dumps({"id": f"s{i}", "workspace": str(tmp_path / ws[i % 3])}) for i in range(27)]
    lines += ["{not json", "[1]", '{"completion": "x", "typo": 1}']  # no id: line 30 is its id
    rollouts = tmp_path / "rollouts.jsonl"
    rollouts.write_text("\n".join(lines) + "\n")
    return tests, rollouts
