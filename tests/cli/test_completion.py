"""`rewardkit completion SHELL`: scripts generated from the parsers complete what they accept."""

from __future__ import annotations

import re
import shutil
import subprocess
from importlib import import_module
from pathlib import Path

import pytest

from rewardkit.cli import SUBCOMMANDS, main


def script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def long_options(command: str) -> list[str]:
    """What `rewardkit COMMAND` accepts, from its own parser."""
    module = import_module(f"rewardkit.cli.{'verify' if command == 'rewardkit' else command}")
    actions = module.build_parser()._actions
    return sorted(s for action in actions for s in action.option_strings if s.startswith("--"))


def needs(shell: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(shutil.which(shell) is None, reason=f"{shell} is not installed")


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding one file, `rollouts.jsonl`."""
    (tmp_path / "rollouts.jsonl").write_text("{}\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def bash_complete(path: Path, *words: str) -> list[str]:
    """COMPREPLY of the generated `_rewardkit` for the command line `words` (the last: TAB)."""
    code = (
        'source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _rewardkit; '
        'printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run(
        ["bash", "-c", code, path, *words], capture_output=True, text=True, check=True
    )
    return done.stdout.split()


BASH_CASES = [
    (["rewardkit", "sc"], ["score"]),
    (["rewardkit", "score", "--ou"], ["--out"]),
    (["rewardkit", "score", "--backend", "r"], ["ray"]),
    (["rewardkit", "score", "--backend", "=", "p"], ["process"]),  # --backend=p
    (["rewardkit", "init", ""], ["harbor", "eval", "rl"]),
    (["rewardkit", "init", "--force", "r"], ["rl"]),
    (["rewardkit", "init", "rl", "ro"], ["rollouts.jsonl"]),  # DIR: a path
    (["rewardkit", "completion", "z"], ["zsh"]),
    (["rewardkit", "--on-error", "o"], ["omit"]),
    (["rewardkit", "--wor"], ["--workspace"]),
    (["rewardkit", "ro"], ["rollouts.jsonl"]),  # a tests directory
    (["rewardkit", "tests", "i"], []),  # subcommands come first or not at all
    (["rewardkit", "score", "ro"], ["rollouts.jsonl"]),
    (["rewardkit", "score", "--out", "ro"], ["rollouts.jsonl"]),
    (["rewardkit", "score", "--out", "x", "ro"], ["rollouts.jsonl"]),
]


@needs("bash")
@pytest.mark.parametrize(("words", "expected"), BASH_CASES, ids=" ".join)
def test_bash_completes(
    words: list[str], expected: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = cwd.parent / "rewardkit.bash"
    path.write_text(script("bash", capsys))
    assert bash_complete(path, *words) == expected


@needs("bash")
def test_bash_offers_each_commands_own_options(
    cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = cwd.parent / "rewardkit.bash"
    path.write_text(script("bash", capsys))
    assert set(bash_complete(path, "rewardkit", "")) >= set(SUBCOMMANDS)
    for command in ["rewardkit", *SUBCOMMANDS]:
        words = [command, "--"] if command == "rewardkit" else ["rewardkit", command, "--"]
        assert sorted(bash_complete(path, *words)) == long_options(command), command


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_script_names_every_command_and_option(
    shell: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = script(shell, capsys)
    for command in ["rewardkit", *SUBCOMMANDS]:
        assert command in text
        for option in long_options(command):
            spelled = rf"'\*?{option}=?\[" if shell == "zsh" else f" -l {option[2:]} "
            assert re.search(spelled, text), option


@needs("zsh")
def test_zsh_script_parses_and_dispatches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "_rewardkit"
    path.write_text(script("zsh", capsys))
    subprocess.run(["zsh", "-n", path], check=True)
    # zsh completes only in an interactive shell: stand in for its helpers, and see which
    # `_arguments` specs the generated function hands over for `rewardkit score --ou<TAB>`
    code = (
        "compdef() { }; _arguments() { print -rl -- $@ }; source $0; "
        "words=(rewardkit score --ou); CURRENT=3; PREFIX=--ou; _rewardkit"
    )
    done = subprocess.run(["zsh", "-c", code, path], capture_output=True, text=True, check=True)
    specs = done.stdout.splitlines()
    spec = {s.split("[")[0]: s.split("]")[-1] for s in specs if "[" in s}  # option: action
    assert spec["--out="] == ":out:_files"
    assert spec["--backend="] == ":backend:(local process ray)"
    assert spec["--no-progress"] == ""
    assert ":rollouts:_files" in specs


@needs("fish")
@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("rewardkit sc", "score"),
        ("rewardkit score --ou", "--out"),
        ("rewardkit score --backend r", "ray"),
        ("rewardkit init ", "harbor"),
        ("rewardkit init --force r", "rl"),
        ("rewardkit completion f", "fish"),
    ],
)
def test_fish_completes(
    line: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "rewardkit.fish"
    path.write_text(script("fish", capsys))
    subprocess.run(["fish", "--no-execute", path], check=True)
    done = subprocess.run(
        ["fish", "--no-config", "-c", f"source {path}; complete -C'{line}'"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert expected in [row.split("\t")[0] for row in done.stdout.splitlines()]


def test_help_says_how_to_install(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["completion", "--help"])
    out = capsys.readouterr().out
    assert 'eval "$(rewardkit completion bash)"' in out
    assert "rewardkit completion fish > ~/.config/fish/completions/rewardkit.fish" in out
