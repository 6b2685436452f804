"""The LLM and agent fields of an eval.yaml judge, resolved where the harness resolves them.

`prompt_file`, `context` files and `agent.context` come from the project root (see
`project_root`), falling back to the eval.yaml's directory, and never from a directory the
graded agent writes; `model` defaults to `models.judge`; `agent.runner` is a mapping like the
top-level `runner` (a bare name works too); a prompt template that does not parse fails at load.
An LLM judge's `supports`, `api_base` and `budget` are checked as a judge TOML's are.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit.core._errors import ConfigError, did_you_mean

__all__ = [
    "LLM_FIELDS",
    "MODEL_FIELDS",
    "JudgeContext",
    "Problems",
    "check_template",
    "llm_config",
    "project_root",
]

LLM_FIELDS = ("llm_rubric", "prompt", "prompt_file")


@dataclass(frozen=True)
class JudgeContext:
    """What judges resolve against: the project root, `models.judge`, `execution.steps` ids."""

    root: Path
    judge_model: str | None = None
    steps: frozenset[str] = frozenset()
    untrusted: tuple[Path, ...] = ()
    """Resolved directories the graded agent writes (the workspace, the cases): no judge file
    or module is ever taken from them."""

    def refusal(self, name: str, found: Path) -> str | None:
        """Why `name`, found at the resolved `found`, may not be used: it lies in (or, as a
        directory, holds) one of `untrusted`. None when it may."""
        for written in self.untrusted:
            if found.is_relative_to(written) or written.is_relative_to(found):
                return (
                    f"{name!r} resolves to {found}, and {written} is written by the graded "
                    f"agent: judge files are never taken from there. Keep it in the project "
                    f"or beside the eval.yaml, outside the agent's directories"
                )
        return None


def project_root(eval_yaml: Path, untrusted: tuple[Path, ...] = ()) -> Path:
    """The harness's project root: the working directory when it holds the eval.yaml and lies
    in no directory of `untrusted` (resolved); else the eval.yaml's directory.

    Harbor runs the verifier in the workspace (`/app`), which holds no tests dir: so the
    agent's files there never stand in for the author's.
    """
    cwd, home = Path.cwd().resolve(), eval_yaml.parent.resolve()
    agents = any(cwd.is_relative_to(d) for d in untrusted)
    return cwd if home.is_relative_to(cwd) and not agents else home


class Problems:
    """Collects the errors of one judge, each located as `eval.yaml: judges[i] 'name'`."""

    def __init__(self, path: Path, key: str, errors: list[ConfigError]) -> None:
        self.path, self.key, self.errors = path, key, errors

    def add(self, message: str, field: str | None = None) -> None:
        key = f"{self.key}.{field}" if field else self.key
        self.errors.append(ConfigError(message, path=self.path, key=key))


def _project_file(
    name: str, path: Path, context: JudgeContext, found: Callable[[Path], bool] = Path.is_file
) -> Path | None:
    """A file the eval author names (anything `found` accepts): from the project root, else
    beside the eval.yaml. The caller refuses one in an agent's directory (`context.refusal`)."""
    for base in _bases(path, context):
        candidate = (base / name).resolve()
        if found(candidate):
            return candidate
    return None


def _bases(path: Path, context: JudgeContext) -> list[Path]:
    """Where judge files are looked for, in order: the project root, the eval.yaml's directory."""
    return list(dict.fromkeys((context.root, path.parent.resolve())))


def _looked_in(path: Path, context: JudgeContext) -> str:
    return " and ".join(map(str, _bases(path, context)))


def llm_config(
    item: Mapping[str, Any], path: Path, context: JudgeContext, problems: Problems
) -> dict[str, Any]:
    """Validate the LLM / agent fields now, so a typo fails at load, not when they run.

    Returns the fields resolved: `prompt_file` as an absolute path, `context` files read into
    the text the harness appends, `model` defaulted from `models.judge`.
    """
    resolved: dict[str, Any] = {}
    for key in ("llm_rubric", "prompt", "model"):
        if key in item and not isinstance(item[key], str):
            problems.add(f"must be a string (got {item[key]!r})", key)
    if not item.get("model") and context.judge_model:
        resolved["model"] = context.judge_model
    resolved |= _model_fields(item, problems)
    if "prompt_file" in item:
        target = item["prompt_file"]
        found = _project_file(target, path, context) if isinstance(target, str) else None
        if found is None:
            where = _looked_in(path, context)
            problems.add(f"file not found (got {target!r}; looked in {where})", "prompt_file")
        elif refused := context.refusal(target, found):
            problems.add(refused, "prompt_file")
        else:
            resolved["prompt_file"] = str(found)
    if "context" in item:
        resolved["context"] = _context(item["context"], path, context, problems)
    if "agent" in item and not isinstance(item["agent"], dict):
        problems.add(
            f"must be a mapping, e.g. {{runner: {{type: claude-code}}}} (got {item['agent']!r})",
            "agent",
        )
    elif "agent" in item:
        resolved["agent"] = _agent_fields(item["agent"], problems)
        _cli_program(resolved["agent"], path, context, problems)
        if isinstance(item["agent"].get("context"), list):
            resolved["agent"]["context"] = _staged_context(
                item["agent"]["context"], path, context, problems
            )
    return resolved


MODEL_FIELDS = ("supports", "api_base", "budget")
"""Where an LLM judge's model is served, what it accepts (a judge TOML's `supports`), and
what the judge may spend (a judge TOML's `budget`)."""


def _model_fields(item: Mapping[str, Any], problems: Problems) -> dict[str, Any]:
    """`supports` (what the model accepts: `response_format`, `reasoning_effort`, `images`,
    each true or false, overriding the capability table), `api_base` (the http(s) URL of
    the OpenAI-compatible endpoint that serves it) and `budget` (USD), checked."""
    from rewardkit.models._request import feature_flags

    found: dict[str, Any] = {}
    supports = item.get("supports")
    if "supports" in item and not isinstance(supports, dict):
        example = "{response_format: true, images: false}"
        message = f"must be a mapping of true/false, e.g. {example} (got {supports!r})"
        problems.add(message, "supports")
    elif isinstance(supports, dict):
        found["supports"] = feature_flags(supports, problems.add)
    if "budget" in item:
        from rewardkit.models._prices import usd

        if usd(item["budget"]) is not None:
            found["budget"] = float(item["budget"])
        else:
            problems.add(
                "must be the most this judge may spend on model calls in a run, in USD: "
                f"a number ≥ 0, e.g. budget: 2.5 (got {item['budget']!r})",
                "budget",
            )
    if "api_base" in item:
        if _http_url(item["api_base"]):
            found["api_base"] = item["api_base"]
        else:
            problems.add(
                "must be the http(s) URL of an OpenAI-compatible endpoint, e.g. "
                f"http://localhost:8000/v1 (got {item['api_base']!r})",
                "api_base",
            )
    return found


def _http_url(value: Any) -> bool:
    """Whether `value` is an `http://` or `https://` URL with a host and no whitespace."""
    from urllib.parse import urlsplit

    if not isinstance(value, str) or not value or any(c.isspace() for c in value):
        return False
    try:
        parts = urlsplit(value)
        return parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # e.g. an unclosed IPv6 bracket, a port that is no number
        return False


def _staged_context(
    raw: list[Any], path: Path, context: JudgeContext, problems: Problems
) -> list[str]:
    """`agent.context`: files and directories the agent judge finds under `./.context/`."""
    found: list[str] = []
    for name in raw:
        target = _project_file(name, path, context, Path.exists) if isinstance(name, str) else None
        if target is None:  # as the harness: left out, the judge still runs
            where = _looked_in(path, context)
            message = f"{path}: {problems.key}.agent.context: {name!r} not in {where}; skipped"
            warnings.warn(message, stacklevel=5)
        elif refused := context.refusal(name, target):
            problems.add(refused, "agent.context")
        else:
            found.append(str(target))
    return found


def _context(raw: Any, path: Path, context: JudgeContext, problems: Problems) -> str:
    """`context:` as the text appended to the prompt.

    A list names files (the harness's form): each found one is appended under a `## Context:`
    heading; a missing one is skipped, as in the harness. A string is the text itself.
    """
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, list) or not all(isinstance(f, str) for f in raw):
        problems.add(f"must be a list of file paths (got {raw!r})", "context")
        return ""
    parts = []
    for name in raw:
        found = _project_file(name, path, context)
        if found is None:
            message = f"{path}: {problems.key}.context: {name!r} not found; skipped"
            warnings.warn(message, stacklevel=5)
            continue
        if refused := context.refusal(name, found):
            problems.add(refused, "context")
            continue
        parts.append(f"## Context: {found.name}\n\n{found.read_text(encoding='utf-8')}")
    return "\n\n".join(parts)


_AGENT_FIELDS = ("runner", "allowed_tools", "context", "inputs", "timeout", "max_budget_usd")
_RUNNERS = ("claude-code", "codex", "cli")
_RUNNER_FIELDS = (
    "type", "command", "workspace_mode", "settings", "plugin_dirs", "env", "system_prompt",
    "effort", "permission_mode",
)  # fmt: skip


def _agent_fields(agent: Mapping[str, Any], problems: Problems) -> dict[str, Any]:
    """The `agent:` block, its `runner` normalized to the runner's name.

    `runner` is a mapping in the harness (`{type: claude-code, effort: high}`); the plain
    name (`runner: codex`) is accepted too. `runner.effort` is kept for the runner. A `cli`
    runner's `command`, `env`, `effort` and `system_prompt` are checked and kept as `cli`.
    """
    for key in agent:
        if key not in _AGENT_FIELDS:
            hint = did_you_mean(str(key), _AGENT_FIELDS)
            problems.add(f"unknown key {key!r}; valid: {', '.join(_AGENT_FIELDS)}.{hint}", "agent")
    result = dict(agent)
    runner = agent.get("runner") or {}
    if isinstance(runner, dict):
        for key in runner:
            if key not in _RUNNER_FIELDS:
                hint = did_you_mean(str(key), _RUNNER_FIELDS)
                problems.add(
                    f"unknown key {key!r}; valid: {', '.join(_RUNNER_FIELDS)}.{hint}",
                    "agent.runner",
                )
        if runner.get("workspace_mode") is not None:
            problems.add(
                "an agent judge always works on a read-only staged copy of the case; drop "
                "workspace_mode",
                "agent.runner.workspace_mode",
            )
        if runner.get("effort") is not None:
            result["effort"] = runner["effort"]
        if runner.get("type") == "cli":
            result["cli"] = _cli_runner(runner, problems)
        runner = runner.get("type", "claude-code")
    elif runner == "cli":
        problems.add(
            "a cli runner needs its command: write runner: {type: cli, command: [...]}",
            "agent.runner.command",
        )
    if runner not in _RUNNERS:
        problems.add(
            f"must be one of {', '.join(_RUNNERS)} (got {runner!r})."
            + did_you_mean(str(runner), _RUNNERS),
            "agent.runner",
        )
    result["runner"] = runner
    timeout = agent.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0
    ):
        problems.add(f"must be a positive number of seconds (got {timeout!r})", "agent.timeout")
    tools = agent.get("allowed_tools")
    if tools is not None and (
        not isinstance(tools, list) or not all(isinstance(t, str) for t in tools)
    ):
        problems.add(
            f"must be a list of tool names, e.g. [Read, Grep] (got {tools!r})",
            "agent.allowed_tools",
        )
    if "context" in agent and not isinstance(agent["context"], str | list):
        got = agent["context"]
        problems.add(f"must be a string or a list of paths (got {got!r})", "agent.context")
    budget = agent.get("max_budget_usd")
    if budget is not None and (
        isinstance(budget, bool) or not isinstance(budget, int | float) or not budget > 0
    ):
        problems.add(f"must be a positive number (got {budget!r})", "agent.max_budget_usd")
    return result


def _cli_runner(runner: Mapping[str, Any], problems: Problems) -> dict[str, Any]:
    """`runner: {type: cli, ...}`, checked by the cli runner itself."""
    from rewardkit.judges.agents.cli import check_runner

    config, found = check_runner(runner)
    for key, message in found:
        problems.add(message, f"agent.runner.{key}")
    return config


def _cli_program(
    agent: Mapping[str, Any], path: Path, context: JudgeContext, problems: Problems
) -> None:
    """A `cli` command's program given as a path is refused in the agent's directories."""
    words = (agent.get("cli") or {}).get("command") or [""]
    program = words[0].replace("{config_dir}", str(path.parent.resolve()), 1)
    if program.startswith("/") and (refused := context.refusal(words[0], Path(program).resolve())):
        problems.add(refused, "agent.runner.command")


def check_template(config: Mapping[str, Any], path: Path, problems: Problems) -> None:
    """A prompt template that does not parse fails at load (the field or file, and the line)."""
    if not any(config.get(f) for f in LLM_FIELDS):
        return
    from rewardkit.evalyaml._llm_judge import template_text
    from rewardkit.evalyaml._template import TemplateError, check

    try:
        check(*template_text(config, path.parent, ""))
    except OSError:
        return  # an unreadable prompt_file is reported by `llm_config`
    except TemplateError as exc:
        problems.add(f"template syntax error: {exc}")
