"""The `cli` runner of eval.yaml agent judges: the harness's generic CLI runner.

`agent.runner: {type: cli, command: ...}` runs an author-written command line as the judge,
as the agent-eval-harness's opaque CLI runner does. The command is a list of words or a
string, which is split into words (`shlex`) *before* anything is put in: each placeholder
(`{args}`, `{model}`, ...; see `PLACEHOLDERS`) is replaced inside the word it is in, so the
prompt and the case's text only ever become (part of) one argument, never a shell's input.
No shell runs unless the command names one. A placeholder not listed is left as written.

The prompt reaches the command as `{args}` (the harness's way), in the file `{prompt_file}`,
and on stdin. The command runs in the judge's staged copy of the case (`{workspace}`), like
`claude` and `codex`, with the same environment allow-list (plus `runner.env`), deadline
(`agent.timeout`, then the process group is killed) and retries; stdout and stderr are kept
up to `OUTPUT_BYTES` each. The verdict is `{output_dir}/score.json` when the command wrote
it, else the last `{"score" | "passed": ...}` object the command printed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rewardkit.judges._definition import JudgeDefinition
from rewardkit.judges.agents._base import AgentReply, CliResult, Invocation, Prepared

__all__ = ["OUTPUT_BYTES", "PLACEHOLDERS", "CliRunner", "check_runner", "last_verdict"]

PLACEHOLDERS = (
    "agent", "workspace", "output_dir", "model", "subagent_model", "timeout", "max_budget_usd",
    "effort", "system_prompt", "config_dir", "args", "prompt_file",
)  # fmt: skip
"""What a command may contain: the harness's placeholders for a judge run, and `prompt_file`
(ours: the prompt in a file, for prompts longer than one argument may be)."""
OUTPUT_BYTES = 1 << 20
"""The most of stdout, and of stderr, kept from one call (their last 1 MiB)."""
DEFAULT_BUDGET = 2.0
"""`{max_budget_usd}` when `agent.max_budget_usd` is not set (the harness's default)."""

_PLACEHOLDER = re.compile(r"\{([\w-]+)\}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FLAT_OBJECT = re.compile(r"\{[^{}]*\}")
_SNIPPET = 200


@dataclass(frozen=True, kw_only=True)
class CliRunner:
    """One eval.yaml judge's `cli` runner: its command template and what fills it."""

    name: ClassVar[str] = "cli"
    executable: ClassVar[str] = ""
    """Unused: the program is the command's first word (`program`, `locate`)."""
    env_names: ClassVar[frozenset[str]] = frozenset()
    env_prefixes: ClassVar[tuple[str, ...]] = ()
    install_hint: ClassVar[str] = (
        "Install it, or name it by its absolute path or as {config_dir}/<path> (beside the "
        "eval.yaml)"
    )

    words: tuple[str, ...]
    """The command template, split into words."""
    env: Mapping[str, str] = field(default_factory=dict)
    """`runner.env`: set for the command; a `$NAME` value is the verifier's `NAME` (when set)."""
    effort: str = ""
    system_prompt: str = ""
    config_dir: str = ""
    """The eval.yaml's directory, absolute."""
    max_budget_usd: float = DEFAULT_BUDGET

    @classmethod
    def from_config(
        cls, config: Mapping[str, Any], config_dir: Path, budget: float | None
    ) -> CliRunner:
        """From `check_runner`'s normalized fields."""
        return cls(
            words=tuple(config["command"]),
            env=dict(config.get("env") or {}),
            effort=str(config.get("effort") or ""),
            system_prompt=str(config.get("system_prompt") or ""),
            config_dir=str(config_dir.resolve()),
            max_budget_usd=float(budget or DEFAULT_BUDGET),
        )

    @property
    def program(self) -> str:
        """The command's first word, `{config_dir}` filled in."""
        return _fill(self.words[0], {"config_dir": self.config_dir})

    def locate(self) -> str | None:
        """The program's absolute path: as written, or found on PATH (absolute entries only:
        a relative one would resolve in the copy of the case). None when not found."""
        program = self.program
        if "/" in program:
            found = Path(program)
            return program if found.is_file() and os.access(found, os.X_OK) else None
        dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(d)]
        return shutil.which(program, path=os.pathsep.join(dirs))

    def prepare(
        self, definition: JudgeDefinition, env: Mapping[str, str], scratch: Path
    ) -> Prepared:
        return Prepared(env=dict(env))  # reduced to the allow-list by `prepare_agent`

    def register_mcp(
        self, definition: JudgeDefinition, exe: str, prepared: Prepared, cwd: Path
    ) -> list[list[str]]:
        return []

    def command(
        self,
        definition: JudgeDefinition,
        exe: str,
        prompt: str,
        schema: dict[str, Any],
        cwd: Path,
        scratch: Path,
    ) -> Invocation:
        prompt_file = scratch / "prompt.md"
        prompt_file.write_text(prompt, encoding="utf-8")
        workspace = cwd.resolve()
        values = {
            "agent": "",  # prompt mode: no skill
            "workspace": str(workspace),
            "output_dir": str(workspace / "output"),
            "model": definition.model or "",
            "subagent_model": "",
            "timeout": _seconds(definition.timeout),
            "max_budget_usd": str(self.max_budget_usd),
            "effort": self.effort,
            "system_prompt": self.system_prompt,
            "config_dir": self.config_dir,
            "args": prompt,
            "prompt_file": str(prompt_file),
        }
        argv = [exe, *(_fill(word, values) for word in self.words[1:])]
        return Invocation(argv=argv, stdin=prompt, env=self._env(), output_cap=OUTPUT_BYTES)

    def parse(self, result: CliResult, invocation: Invocation) -> AgentReply:
        verdict = last_verdict(result.stdout)
        if verdict is not None:
            return AgentReply(text=verdict)
        shown = " ".join(result.stdout.split())[-_SNIPPET:] or "nothing"
        return AgentReply(
            error=(
                'the command wrote no output/score.json and printed no {"score": ...} or '
                f'{{"passed": ...}} JSON object; its stdout ends: {shown}'
            )
        )

    def native_log(self, session_id: str, prepared: Prepared) -> Path | None:
        return None

    def _env(self) -> dict[str, str]:
        """`runner.env`, each `$NAME` value read from the verifier's environment (left out
        when it is not set there, as the harness does)."""
        out = {}
        for name, value in self.env.items():
            if value.startswith("$"):
                if (found := os.environ.get(value[1:])) is not None:
                    out[name] = found
            else:
                out[name] = value
        return out


def last_verdict(text: str) -> str | None:
    """The last flat JSON object in `text` with a `score` or `passed` key, as text.

    >>> last_verdict('thinking {"x": 1}\\n{"score": 3, "rationale": "ok"} done')
    '{"score": 3, "rationale": "ok"}'
    """
    for match in reversed(list(_FLAT_OBJECT.finditer(text))):
        try:
            data = json.loads(match.group(0))
        except ValueError:
            continue
        if isinstance(data, dict) and ("score" in data or "passed" in data):
            return match.group(0)
    return None


def check_runner(runner: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """A `{type: cli, ...}` runner mapping checked: its fields normalized (`command` as
    words, `env` values as text), and the problems as `(key, message)` pairs.

    >>> check_runner({"type": "cli", "command": "judge --model {model} {args}"})[0]["command"]
    ['judge', '--model', '{model}', '{args}']
    >>> check_runner({"type": "cli", "command": "./judge.sh {args}"})[1][0][0]
    'command'
    """
    problems: list[tuple[str, str]] = []
    words = _words(runner.get("command"), problems)
    config: dict[str, Any] = {"command": words, "env": _env_field(runner.get("env"), problems)}
    for key in ("effort", "system_prompt"):
        value = runner.get(key)
        if value is not None and not isinstance(value, str):
            problems.append((key, f"must be a string (got {value!r})"))
        config[key] = value if isinstance(value, str) else ""
    return config, problems


def _words(command: Any, problems: list[tuple[str, str]]) -> list[str]:
    example = "e.g. [my-judge, --model, '{model}', '{args}']"
    if command is None:
        problems.append(
            ("command", f"is required for a cli runner: the judge's command, {example}")
        )
        return []
    if isinstance(command, str):
        try:
            words = shlex.split(command)
        except ValueError as exc:
            problems.append(("command", f"cannot be split into words: {exc} (got {command!r})"))
            return []
    elif isinstance(command, list) and all(isinstance(w, str) for w in command):
        words = list(command)
    else:
        problems.append(("command", f"must be a string or a list of strings (got {command!r})"))
        return []
    if not words or not words[0]:
        problems.append(("command", f"must name a program, {example} (got {command!r})"))
    elif problem := _program_problem(words[0]) or _shell_problem(words):
        problems.append(("command", problem))
    return words


_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "fish"})
_UNTRUSTED = ("{args}", "{system_prompt}", "{workspace}", "{output_dir}")
"""Placeholders whose text comes from the case: never inside a shell's script."""


def _shell_problem(words: list[str]) -> str | None:
    """A shell's `-c` script naming a placeholder filled with the case's text: the agent's
    output would be run as commands."""
    if Path(words[0].replace("{config_dir}", "")).name not in _SHELLS:
        return None
    scripts = [w for w in words[1:] if any(p in w for p in _UNTRUSTED)]
    command_flag = any(w[:1] == "-" and w[1:2] != "-" and "c" in w for w in words[1:])
    if not command_flag or not scripts:
        return None
    return (
        f"passes {scripts[0]!r} to a shell's -c script, which would run the case's text as "
        "commands: give {args} as its own word, or read the prompt from stdin or {prompt_file}"
    )


def _program_problem(word: str) -> str | None:
    """Why the command's first word cannot be the program: it must be found without the
    case's copy (where the command runs, and which the graded agent wrote)."""
    rest = word.removeprefix("{config_dir}")
    if _PLACEHOLDER.search(rest):
        return (
            f"the program {word!r} may use no placeholder but a leading {{config_dir}}: name "
            f"a program on PATH, an absolute path or {{config_dir}}/<path>"
        )
    if rest != word and not rest.startswith("/"):
        return f"write the program as {{config_dir}}/<path> (got {word!r})"
    if "/" in word and not word.startswith(("/", "{config_dir}")):
        return (
            f"the program {word!r} is a relative path, which would resolve in the judge's copy "
            f"of the case (written by the graded agent); write "
            f"{{config_dir}}/{word.removeprefix('./')} for a file "
            f"beside the eval.yaml, an absolute path, or a program on PATH"
        )
    return None


def _env_field(env: Any, problems: list[tuple[str, str]]) -> dict[str, str]:
    if env is None:
        return {}
    if not isinstance(env, dict):
        problems.append(("env", f"must be a mapping of variable names to values (got {env!r})"))
        return {}
    out = {}
    for name, value in env.items():
        if not isinstance(name, str) or not _ENV_NAME.fullmatch(name):
            problems.append(("env", f"{name!r} is not a variable name (letters, digits, _)"))
        elif isinstance(value, dict | list) or value is None:
            problems.append(("env", f"{name}: must be a string, a number or $NAME (got {value!r})"))
        else:
            out[name] = str(value)
    return out


def _fill(word: str, values: Mapping[str, str]) -> str:
    """`word` with each known `{name}` replaced by its value, in one pass (a value is never
    read for placeholders)."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), word)


def _seconds(timeout: float) -> str:
    return str(int(timeout)) if float(timeout).is_integer() else str(timeout)
