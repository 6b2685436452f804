"""Built-in command criteria: exit codes, stdout, cwd confinement, timeouts."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from rewardkit.criteria import commands


def run(crit: str, ws: Path, *args: object, **kwargs: object) -> object:
    return getattr(commands, crit).make_check(args, kwargs).evaluate(ws)


def test_command_succeeds(ws: Path) -> None:
    assert run("command_succeeds", ws, "true") is True
    assert run("command_succeeds", ws, "false") is False
    assert run("command_succeeds", ws, "exit 3") is False
    assert run("command_succeeds", ws, "kill -9 $$") is False  # killed by a signal


def test_commands_run_in_the_workspace(ws: Path) -> None:
    (ws / "marker").write_text("x")
    assert run("command_succeeds", ws, "test -f marker") is True
    assert run("command_output_matches", ws, "pwd -P", str(ws.resolve())) is True


def test_command_output_contains(ws: Path) -> None:
    assert run("command_output_contains", ws, "echo hello world", "lo wo") is True
    assert run("command_output_contains", ws, "echo hello", "bye") is False
    assert run("command_output_contains", ws, "echo hello >&2", "hello") is False  # stdout only
    assert run("command_output_contains", ws, "echo hello; exit 1", "hello") is True


def test_command_output_matches(ws: Path) -> None:
    assert run("command_output_matches", ws, "printf '  42\\n\\n'", "42\n") is True
    assert run("command_output_matches", ws, "echo 421", "42") is False


def test_command_output_matches_regex(ws: Path) -> None:
    assert run("command_output_matches_regex", ws, "echo v1.20.3", r"v\d+\.\d+") is True
    assert run("command_output_matches_regex", ws, "echo version", r"^\d") is False


def test_bad_regex_fails_before_the_command_runs(ws: Path) -> None:
    with pytest.raises(re.error):
        run("command_output_matches_regex", ws, "touch ran", "(")
    assert not (ws / "ran").exists()


def test_cwd_relative_to_the_workspace(ws: Path) -> None:
    (ws / "sub" / "deeper").mkdir(parents=True)
    (ws / "sub" / "f.txt").write_text("x")
    assert run("command_succeeds", ws, "test -f f.txt", cwd="sub") is True
    assert run("command_succeeds", ws, "test -f f.txt") is False
    assert run("command_output_contains", ws, "pwd -P", "sub/deeper", cwd="sub/deeper") is True


def test_missing_cwd_raises(ws: Path) -> None:
    msg = "command_succeeds: cwd 'nope' does not exist in the workspace"
    with pytest.raises(FileNotFoundError, match=re.escape(msg)):
        run("command_succeeds", ws, "true", cwd="nope")
    (ws / "file").write_text("x")
    with pytest.raises(NotADirectoryError, match="is not a directory"):
        run("command_output_contains", ws, "true", "x", cwd="file")


@pytest.mark.parametrize("kind", ["absolute-symlink", "dotdot", "symlink"])
@pytest.mark.parametrize(
    ("crit", "args"),
    [
        ("command_succeeds", ()),
        ("command_output_contains", ("",)),
        ("command_output_matches", ("",)),
        ("command_output_matches_regex", ("",)),
    ],
)
def test_cwd_outside_the_workspace_never_runs(
    ws: Path, tmp_path: Path, kind: str, crit: str, args: tuple[str, ...]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    cwd = {"absolute-symlink": str(ws / "link"), "dotdot": "../outside", "symlink": "link"}[kind]
    (ws / "link").symlink_to(outside)
    with pytest.warns(UserWarning, match=rf"^{crit}: .*assigning reward 0"):
        assert run(crit, ws, "touch ran", *args, cwd=cwd) is False
    assert not (outside / "ran").exists()


@pytest.mark.parametrize(
    ("crit", "args"),
    [
        ("command_succeeds", ()),
        ("command_output_contains", ("x",)),
        ("command_output_matches", ("x",)),
        ("command_output_matches_regex", ("x",)),
    ],
)
def test_timeout_is_false_and_fast(ws: Path, crit: str, args: tuple[str, ...]) -> None:
    started = time.monotonic()
    assert run(crit, ws, "echo x; sleep 30 & sleep 30", *args, timeout=0.5) is False
    assert time.monotonic() - started < 3


def test_timeout_kills_the_whole_process_group(ws: Path) -> None:
    cmd = "(sleep 1; touch late) & sleep 30"
    assert run("command_succeeds", ws, cmd, timeout=0.3) is False
    time.sleep(1.2)
    assert not (ws / "late").exists()  # the background child died with the group


def test_descriptions() -> None:
    cases = {
        ("command_succeeds", ("make test",)): (
            "Check that the command `make test` exits with code 0"
        ),
        ("command_output_contains", ("ls", "a.txt")): (
            "Check that the stdout of `ls` contains 'a.txt'"
        ),
        ("command_output_matches", ("echo hi", "hi")): (
            "Check that output of `echo hi` matches 'hi'"
        ),
        ("command_output_matches_regex", ("echo hi", "h.")): (
            "Check that output of `echo hi` matches regex 'h.'"
        ),
    }
    for (crit, args), text in cases.items():
        check = getattr(commands, crit).make_check(args)
        assert check.description == text
        assert check.name == f"{crit}:{args[0]}"
        assert check.arguments["timeout"] == 30
        assert check.arguments["cwd"] is None
