"""A parsed judge TOML (`[judge]`, `[[criterion]]`) → `JudgeDefinition`, or located errors.

Every `[judge]` key of RewardKit 0.2.3 is accepted. The `REWARDKIT_JUDGE`,
`REWARDKIT_MODEL` and `REWARDKIT_REASONING_EFFORT` environment variables (set by
`--judge`, `--model` and `--effort`) override the file. Problems are collected, never
raised one at a time, and each names the TOML file and the key or criterion at fault.

Over 350 lines: every `[judge]` key of RewardKit 0.2.3, each with its located error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, cast, get_args

from rewardkit.core._errors import ConfigError
from rewardkit.harbor._criteria_config import parse_criteria
from rewardkit.harbor._toml_fields import TableReader
from rewardkit.judges._definition import (
    AGENTS,
    DEFAULT_JUDGE,
    GUARD_NAME,
    CriterionDef,
    Guard,
    JudgeDefinition,
    McpServer,
    Mode,
    TomlKind,
)
from rewardkit.judges.formats import Binary, Rubric

__all__ = ["EFFORTS", "judge_kind", "load_definition"]

_JUDGE_KEYS = (
    "judge",
    "model",
    "version",
    "files",
    "mode",
    "timeout",
    "reasoning_effort",
    "supports",
    "budget",
    "isolated",
    "cwd",
    "reference",
    "atif-trajectory",
    "atif_trajectory",
    "mcp_servers",
    "weight",
    "prompt_template",
    "samples",
    "guard",
)
_MCP_KEYS = ("name", "transport", "url", "command", "args", "allowed_tools")
_TRANSPORTS = ("stdio", "sse", "streamable-http")
_LLM_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
EFFORTS: dict[str, tuple[str, ...]] = {
    "llm": _LLM_EFFORTS,
    "claude-code": ("low", "medium", "high", "xhigh", "max"),
    "codex": _LLM_EFFORTS,
    "fx": ("auto", *_LLM_EFFORTS),
}
"""The `reasoning_effort` values each judge accepts (LLM judges: LiteLLM's values)."""
_SEMVER = re.compile(r"v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?")


def _supports(read: TableReader, kind: TomlKind) -> dict[str, bool]:
    """`[judge].supports`: what the model accepts, overriding the capability table."""
    from rewardkit.models._request import feature_flags

    value = read.table.get("supports", {})
    example = "supports = { response_format = true, images = false }"
    if not isinstance(value, dict):
        read.error(f"must be a table of true/false (got {value!r}), e.g. {example}", "supports")
        return {}
    flags = feature_flags(value, read.error)
    if value and kind != "llm":
        read.error("only LLM judges take it (agents and JEV choose their own)", "supports")
    return flags


def _budget(read: TableReader, kind: TomlKind) -> float | None:
    """`[judge].budget`: the most this judge may spend on model calls in a run (USD)."""
    from rewardkit.models._prices import usd

    if "budget" not in read.table:
        return None
    value = usd(read.table["budget"])
    if value is None:
        read.error(f"must be a number of dollars ≥ 0 (got {read.table['budget']!r})", "budget")
    elif kind != "llm":
        read.error("only LLM judges take it (an agent's CLI pays for its own calls)", "budget")
        return None
    return value


def judge_kind(name: str, agents: Collection[str] = AGENTS) -> TomlKind:
    """`jev`, `agent` for a registered agent CLI, else `llm` (any LiteLLM model string)."""
    if name == "jev":
        return "jev"
    return "agent" if name in agents else "llm"


def load_definition(
    path: Path,
    data: Mapping[str, Any],
    errors: list[ConfigError],
    *,
    agents: Collection[str] = AGENTS,
) -> JudgeDefinition:
    """Validate a parsed judge TOML; problems are appended to `errors`.

    The result is complete even when there were errors (invalid values fall back to their
    defaults and invalid criteria are left out), so later checks still run.
    """
    config = data.get("judge", {})
    if not isinstance(config, dict):
        errors.append(
            ConfigError(
                f"[judge] must be a table (got judge = {config!r}); write it as a table, "
                f'e.g.\n  [judge]\n  judge = "openai/gpt-5"',
                path=path,
            )
        )
        config = {}
    read = TableReader(config, path, "[judge]", errors)
    read.unknown(_JUDGE_KEYS, "[judge]")
    env_judge = os.environ.get("REWARDKIT_JUDGE")
    name = env_judge or read.string("judge", '"openai/gpt-5"') or DEFAULT_JUDGE
    origin = f"judge {name!r}" + (" (from REWARDKIT_JUDGE / --judge)" if env_judge else "")
    kind = judge_kind(name, agents)
    model = read.string("model", '"anthropic/claude-sonnet-5"')
    definition = JudgeDefinition(
        source=path,
        kind=kind,
        judge=name,
        model=name if kind == "llm" else os.environ.get("REWARDKIT_MODEL") or model,
        criteria=(),
        version=_version(read, kind),
        files=read.strings("files", '["src/main.py"]'),
        mode=read.choice("mode", get_args(Mode), "batched"),
        timeout=read.number("timeout", 300, positive=True),
        reasoning_effort=_effort(read, kind, name),
        supports=_supports(read, kind),
        budget=_budget(read, kind),
        isolated=read.boolean("isolated", False),
        cwd=read.string("cwd", '"."'),
        reference=read.string("reference", '"solution/reference.py"'),
        atif_trajectory=_trajectory(read),
        mcp_servers=_mcp_servers(read),
        weight=float(read.number("weight", 1.0)),
        samples=read.integer("samples", 1, minimum=1),
        guard=read.choice("guard", get_args(Guard), "off"),
    )
    template = read.string("prompt_template", '"prompt.md"')
    if template is not None:
        text = _template(read, path.parent / template)
        if text is not None:
            definition = replace(
                definition, prompt_template=path.parent / template, prompt_text=text
            )
    definition = replace(definition, criteria=parse_criteria(path, data.get("criterion"), errors))
    _check_kind(read, definition, origin)
    _check_criteria(read, definition)
    return definition


def _version(read: TableReader, kind: TomlKind) -> str | None:
    version = read.string("version", '"1.2.3"')
    if version is not None and kind == "agent" and not _SEMVER.fullmatch(version):
        read.error(
            f"must be a semantic version of the agent CLI (got {version!r}), e.g. "
            f'version = "2.1.0"',
            "version",
        )
        return None
    return version


def _effort(read: TableReader, kind: TomlKind, name: str) -> str | None:
    """`REWARDKIT_REASONING_EFFORT` or the file's value, checked against what the judge
    accepts. JEV has no effort: the override is not applied to it."""
    own = read.string("reasoning_effort", '"medium"')
    env = os.environ.get("REWARDKIT_REASONING_EFFORT")
    if kind == "jev":
        return own
    effort = env or own
    allowed = EFFORTS.get("llm" if kind == "llm" else name)
    if effort is None or allowed is None or effort in allowed:
        return effort
    valid = ", ".join(repr(e) for e in allowed)
    source = "REWARDKIT_REASONING_EFFORT / --effort" if env else "reasoning_effort"
    read.error(
        f"{source} {effort!r} is not supported by {name!r} judges. Valid values: {valid}.",
        "reasoning_effort",
    )
    return None


def _trajectory(read: TableReader) -> str | None:
    if "atif-trajectory" in read.table and "atif_trajectory" in read.table:
        read.error("set 'atif-trajectory' or its alias 'atif_trajectory', not both.")
    return read.string("atif-trajectory", '"/logs/trajectory.json"') or read.string(
        "atif_trajectory", '"/logs/trajectory.json"'
    )


def _template(read: TableReader, template: Path) -> str | None:
    """The prompt template's text, if it is a readable `.txt`/`.md` with `{criteria}`."""
    where = "prompt_template"
    if template.suffix not in (".txt", ".md"):
        read.error(f"must be a .txt or .md file (got {template.name!r}).", where)
        return None
    try:
        text = template.read_text(encoding="utf-8")
    except FileNotFoundError:
        read.error(f"{str(template)!r} not found; the path is relative to the judge TOML.", where)
        return None
    except (OSError, UnicodeDecodeError) as exc:
        read.error(f"cannot read {str(template)!r} ({exc}).", where)
        return None
    if "{criteria}" not in text:
        read.error(
            f"{template.name} must contain the placeholder {{criteria}}, where the list of "
            f"criteria and the answer format go.",
            where,
        )
        return None
    return text


def _mcp_servers(read: TableReader) -> tuple[McpServer, ...]:
    raw = read.table.get("mcp_servers", [])
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        read.error(
            f"must be a list of tables (got {raw!r}), e.g.\n  [[judge.mcp_servers]]\n"
            f'  name = "docs"\n  transport = "stdio"\n  command = "docs-mcp"',
            "mcp_servers",
        )
        return ()
    servers: list[McpServer] = []
    for i, table in enumerate(raw):
        server = _mcp_server(
            TableReader(table, read.path, f"[judge].mcp_servers[{i}]", read.errors)
        )
        if server is not None and any(s.name == server.name for s in servers):
            read.error(f"MCP server name {server.name!r} is used twice.", "mcp_servers")
        elif server is not None:
            servers.append(server)
    return tuple(servers)


def _mcp_server(read: TableReader) -> McpServer | None:
    before = len(read.errors)
    read.unknown(_MCP_KEYS, "an MCP server")
    name = read.string("name", '"docs"')
    if name is None and "name" not in read.table:
        read.error('needs a name, e.g. name = "docs"')
    command = read.string("command", '"docs-mcp"')
    url = read.string("url", '"http://localhost:8000/mcp"')
    # RewardKit defaults to "sse"; a server given only a command can only mean stdio.
    default = "stdio" if command is not None and url is None else "sse"
    raw = read.table.get("transport", default)
    transport = "streamable-http" if raw == "http" else raw
    if transport not in _TRANSPORTS:
        valid = ", ".join(repr(t) for t in (*_TRANSPORTS, "http"))
        read.error(f"must be one of {valid} (got {raw!r}).", "transport")
        return None
    if transport == "stdio" and command is None:
        read.error('a stdio MCP server needs a command, e.g. command = "docs-mcp"')
    if transport != "stdio" and url is None:
        read.error(f'a {transport} MCP server needs a url, e.g. url = "http://localhost:8000/mcp"')
    args = read.strings("args", '["--port", "8000"]')
    tools = read.strings("allowed_tools", '["search"]')
    if name is None or len(read.errors) > before:
        return None
    return McpServer(
        name=name,
        transport=cast(Any, transport),
        url=url,
        command=command,
        args=args,
        allowed_tools=tools,
    )


def _check_kind(read: TableReader, definition: JudgeDefinition, origin: str) -> None:
    """What a JEV judge cannot do (it grades text against the criteria descriptions)."""
    if definition.kind != "jev":
        return
    fix = "Remove it or use an LLM or agent judge."
    if definition.guard != "off":
        read.error(f"the jev judge ({origin}) does not support guard. {fix}", "guard")
    if definition.reasoning_effort is not None:
        read.error(f"the jev judge ({origin}) has no reasoning effort. {fix}", "reasoning_effort")
    if definition.atif_trajectory is not None:
        read.error(f"the jev judge ({origin}) does not support 'atif-trajectory'. {fix}")
    if "prompt_template" in read.table:
        read.error(
            f"the jev judge ({origin}) does not take a custom prompt; it grades from the "
            f"criterion descriptions. {fix}",
            "prompt_template",
        )
    for c in definition.criteria:
        if not isinstance(c.format, Binary | Rubric):
            read.errors.append(
                ConfigError(
                    f"the jev judge ({origin}) supports binary and rubric criteria, got "
                    f"{type(c.format).__name__.lower()}. Describe the scale as a rubric, "
                    f'e.g. type = "rubric" with levels = ["Poor", "Fair", "Good"].',
                    path=read.path,
                    key=f"[[criterion]] {c.name!r}",
                )
            )


def _check_criteria(read: TableReader, definition: JudgeDefinition) -> None:
    """Names unique in batched mode, per-criterion files only in individual mode, and the
    name `guard` kept free for the guard."""
    seen: dict[str, CriterionDef] = {}
    for c in definition.criteria:
        where = f"[[criterion]] {c.name!r}"
        if definition.guard != "off" and c.name == GUARD_NAME:
            read.errors.append(
                ConfigError(
                    f"the name {GUARD_NAME!r} is reserved while [judge].guard is "
                    f"{definition.guard!r}; give this criterion another name.",
                    path=read.path,
                    key=where,
                )
            )
        if definition.mode != "batched":
            continue
        if c.files and definition.kind != "agent":
            read.errors.append(
                ConfigError(
                    "per-criterion 'files' needs the judge to run each criterion on its "
                    'own: set mode = "individual" in [judge], or move the files to '
                    "[judge].files.",
                    path=read.path,
                    key=where,
                )
            )
        if c.name in seen:
            read.errors.append(
                ConfigError(
                    f"duplicate criterion name (descriptions: {seen[c.name].description!r} "
                    f"and {c.description!r}); a batched judge answers by name. Set distinct "
                    f'name = "..." values, or mode = "individual".',
                    path=read.path,
                    key=where,
                )
            )
        seen.setdefault(c.name, c)
