"""Built-in criteria that run a shell command in the workspace.

The command runs in its own process group with a hard timeout (`run_command`); a command
that times out scores False. `cwd` is the task author's path (see `confine`): relative to
the workspace and never leading out of it through `..` or a symlink. Output is kept to a
head and a tail; a criterion that reads stdout past that cap is an error outcome naming it.
"""

from __future__ import annotations

from pathlib import Path

from rewardkit.core._untrusted import CapExceeded, OutsideWorkspace, confine
from rewardkit.criteria._command import KEEP_BYTES, CommandResult, run_command
from rewardkit.criteria._paths import warn_outside
from rewardkit.criteria._registry import builtin

__all__ = [
    "command_output_contains",
    "command_output_matches",
    "command_output_matches_regex",
    "command_succeeds",
]


def _run(crit: str, workspace: Path, cmd: str, cwd: str | None, timeout: float) -> str | None:
    """Run `cmd` and return its stdout if it finished (any exit code), else None.

    Raises:
        CapExceeded: stdout was longer than the head and tail kept.
        FileNotFoundError: `cwd` does not exist in the workspace.
        NotADirectoryError: `cwd` is not a directory.
    """
    result = _execute(crit, workspace, cmd, cwd, timeout)
    if result is None or result.timed_out:
        return None
    if result.dropped[0]:
        raise CapExceeded(
            f"{crit}: `{cmd}` printed {2 * KEEP_BYTES + result.dropped[0]:,} bytes; only the "
            f"first and last {KEEP_BYTES >> 20} MiB are kept (the cap), too few to judge"
        )
    return result.stdout


def _execute(
    crit: str, workspace: Path, cmd: str, cwd: str | None, timeout: float
) -> CommandResult | None:
    """Run `cmd` in the confined `cwd`; None (after a warning) if `cwd` leaves the workspace."""
    if not cwd:
        return run_command(cmd, Path(workspace), timeout, Path(workspace))
    try:
        where = confine(workspace, cwd)
    except OutsideWorkspace as exc:
        warn_outside(crit, exc)
        return None
    if not where.exists():
        raise FileNotFoundError(f"{crit}: cwd {cwd!r} does not exist in the workspace")
    if not where.is_dir():
        raise NotADirectoryError(f"{crit}: cwd {cwd!r} is not a directory in the workspace")
    return run_command(cmd, where, timeout, Path(workspace))


@builtin("Check that the command `{cmd}` exits with code 0")
def command_succeeds(
    workspace: Path, cmd: str, cwd: str | None = None, timeout: float = 30
) -> bool:
    """True if `cmd` exits with code 0 within `timeout` seconds."""
    result = _execute("command_succeeds", workspace, cmd, cwd, timeout)
    return result is not None and result.returncode == 0


@builtin("Check that the stdout of `{cmd}` contains '{text}'")
def command_output_contains(
    workspace: Path, cmd: str, text: str, cwd: str | None = None, timeout: float = 30
) -> bool:
    """True if the stdout of `cmd` contains `text` (any exit code)."""
    stdout = _run("command_output_contains", workspace, cmd, cwd, timeout)
    return stdout is not None and text in stdout


@builtin("Check that output of `{cmd}` matches {expected!r}")
def command_output_matches(
    workspace: Path, cmd: str, expected: str, cwd: str | None = None, timeout: float = 30
) -> bool:
    """True if the stripped stdout of `cmd` equals the stripped `expected`."""
    stdout = _run("command_output_matches", workspace, cmd, cwd, timeout)
    return stdout is not None and stdout.strip() == expected.strip()


@builtin("Check that output of `{cmd}` matches regex '{pattern}'")
def command_output_matches_regex(
    workspace: Path, cmd: str, pattern: str, cwd: str | None = None, timeout: float = 30
) -> bool:
    """True if `re.search(pattern)` finds a match in the stdout of `cmd`."""
    import re

    regex = re.compile(pattern)  # a bad pattern fails before the command runs
    stdout = _run("command_output_matches_regex", workspace, cmd, cwd, timeout)
    return stdout is not None and regex.search(stdout) is not None
