"""Built-in trajectory criteria on ATIF files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rewardkit.criteria import trajectory

DEFAULT = "/logs/agent/trajectory.json"


def step(source: str, *tools: str) -> dict[str, Any]:
    calls = [{"function_name": name, "arguments": {}} for name in tools]
    return {"source": source, "message": "...", "tool_calls": calls or None}


def write(path: Path, steps: list[dict[str, Any]]) -> str:
    path.write_text(json.dumps({"agent": {"name": "test"}, "steps": steps}))
    return str(path)


def run(crit: str, ws: Path, *args: object, **kwargs: object) -> object:
    return getattr(trajectory, crit).make_check(args, kwargs).evaluate(ws)


@pytest.fixture
def traj(tmp_path: Path) -> str:
    """An absolute trajectory outside the workspace: 3 agent turns, bash twice and edit once."""
    steps = [
        step("user"),
        step("agent", "bash"),
        step("system"),
        step("agent", "bash", "edit"),
        step("agent"),
    ]
    return write(tmp_path / "trajectory.json", steps)


def test_tool_used(ws: Path, traj: str) -> None:
    assert run("trajectory_tool_used", ws, "bash", path=traj) is True
    assert run("trajectory_tool_used", ws, "bash", 2, path=traj) is True
    assert run("trajectory_tool_used", ws, "bash", 3, path=traj) is False
    assert run("trajectory_tool_used", ws, "edit", path=traj) is True
    assert run("trajectory_tool_used", ws, "web", path=traj) is False


def test_tool_not_used(ws: Path, traj: str) -> None:
    assert run("trajectory_tool_not_used", ws, "web", path=traj) is True
    assert run("trajectory_tool_not_used", ws, "edit", path=traj) is False


@pytest.mark.parametrize(
    ("max_turns", "score"), [(3, 1.0), (5, 1.0), (2, 0.5), (1, 0.0), (0, 0.0), (-1, 0.0)]
)
def test_turn_count(ws: Path, traj: str, max_turns: int, score: float) -> None:
    result = run("trajectory_turn_count", ws, max_turns, path=traj)
    assert isinstance(result, float)
    assert result == pytest.approx(score)


def test_turn_count_zero_budget_without_turns(ws: Path, tmp_path: Path) -> None:
    path = write(tmp_path / "t.json", [step("user"), step("system")])
    assert run("trajectory_turn_count", ws, 0, path=path) == 1.0


def test_relative_path_is_read_in_the_workspace(ws: Path) -> None:
    (ws / "logs").mkdir()
    write(ws / "logs" / "t.json", [step("agent", "grep")])
    assert run("trajectory_tool_used", ws, "grep", path="logs/t.json") is True


@pytest.mark.parametrize("kind", ["dotdot", "symlink"])
@pytest.mark.parametrize(
    ("crit", "args", "zero"),
    [
        ("trajectory_tool_used", ("bash",), False),
        ("trajectory_tool_not_used", ("web",), False),
        ("trajectory_turn_count", (10,), 0.0),
    ],
)
def test_relative_path_never_leaves_the_workspace(
    ws: Path, traj: str, kind: str, crit: str, args: tuple[object, ...], zero: object
) -> None:
    (ws / "link.json").symlink_to(traj)
    path = "../trajectory.json" if kind == "dotdot" else "link.json"
    with pytest.warns(UserWarning, match=rf"^{crit}: .*assigning reward 0"):
        result = run(crit, ws, *args, path=path)
    assert result == zero
    assert type(result) is type(zero)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "not found"),
        ("{oops", "is not valid JSON"),
        ("[1, 2]", "is not a JSON object"),
        (b"\xff\xfe", r"could not be read \(UnicodeDecodeError\)"),
    ],
)
@pytest.mark.parametrize(
    ("crit", "args", "zero"),
    [
        ("trajectory_tool_used", ("bash",), False),
        ("trajectory_tool_not_used", ("web",), False),
        ("trajectory_turn_count", (10,), 0.0),
    ],
)
def test_unusable_trajectory(
    ws: Path,
    tmp_path: Path,
    content: str | bytes | None,
    problem: str,
    crit: str,
    args: tuple[object, ...],
    zero: object,
) -> None:
    path = tmp_path / "t.json"
    if isinstance(content, str):
        path.write_text(content)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    msg = rf"^{crit}: trajectory '{path}' {problem}, assigning reward 0$"
    with pytest.warns(UserWarning, match=msg):
        result = run(crit, ws, *args, path=str(path))
    assert result == zero
    assert type(result) is type(zero)


def test_missing_relative_trajectory(ws: Path) -> None:
    with pytest.warns(UserWarning, match="^trajectory_tool_used: 't.json' not found in workspace"):
        assert run("trajectory_tool_used", ws, "bash", path="t.json") is False


def test_default_path_when_absent(ws: Path) -> None:
    if Path(DEFAULT).exists():
        pytest.skip(f"{DEFAULT} exists on this machine")
    with pytest.warns(UserWarning, match=f"trajectory '{DEFAULT}' not found"):
        assert run("trajectory_turn_count", ws, 5) == 0.0


def test_odd_shapes_are_tolerated(ws: Path, tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(
        json.dumps(
            {
                "steps": [
                    "not a step",
                    {"source": "agent", "tool_calls": "nope"},
                    {"source": "agent", "tool_calls": [None, {"function_name": "bash"}]},
                    {"tool_calls": [{"arguments": {}}]},
                ]
            }
        )
    )
    assert run("trajectory_tool_used", ws, "bash", path=str(path)) is True
    assert run("trajectory_turn_count", ws, 2, path=str(path)) == 1.0
    path.write_text("{}")  # no steps at all: an empty trajectory
    assert run("trajectory_tool_used", ws, "bash", path=str(path)) is False
    assert run("trajectory_tool_not_used", ws, "bash", path=str(path)) is True
    assert run("trajectory_turn_count", ws, 0, path=str(path)) == 1.0


def test_descriptions() -> None:
    check = trajectory.trajectory_tool_used.make_check(("bash",))
    assert check.description == f"Agent used tool 'bash' (trajectory: {DEFAULT})"
    assert check.name == "trajectory_tool_used:bash"
    assert check.arguments == {"tool_name": "bash", "min_count": 1, "path": DEFAULT}
    check = trajectory.trajectory_tool_not_used.make_check(("rm",), {"path": "t.json"})
    assert check.description == "Agent did not use tool 'rm' (trajectory: t.json)"
    check = trajectory.trajectory_turn_count.make_check((30,))
    assert check.description == f"Agent completed task within 30 turns (trajectory: {DEFAULT})"
    assert check.name == "trajectory_turn_count:30"
