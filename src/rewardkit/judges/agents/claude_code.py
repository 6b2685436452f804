"""The `claude-code` backend: Anthropic's Claude Code CLI (`claude`), run headless.

One call is `claude -p <prompt> --output-format json --json-schema <schema>
--permission-mode default --allowedTools "<tools>" [--model M] [--effort E]`, with stdin
on /dev/null, in the judge's working directory.

MCP servers go in a JSON file written for each call into its private scratch directory and
passed with `--mcp-config <file> --strict-mcp-config`: nothing is written to the user's
`~/.claude.json` (as `claude mcp add` would), and only the judge's servers are loaded.

Permissions (RewardKit passes none, so what its judge may do depends on the user's Claude
settings): we pass `--permission-mode default`, which overrides a `plan` or
`bypassPermissions` default from settings, and pre-approve the tools a judge needs to read
the work and run it: `Read`, `Glob`, `Grep`, `LS`, `Bash`, plus the configured MCP servers'
tools. Editing tools stay unapproved, and a headless run cannot ask, so the judge does not
edit files through them. We do not use `bypassPermissions`: Claude refuses it as root,
which is how many verifier containers run. `Bash` can still write; use `isolated = true`
to keep the workspace untouched.

The output is one JSON envelope: `structured_output` (the schema-conforming answer),
`result` (text), `is_error`, `usage`, `total_cost_usd` and `session_id`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from rewardkit.judges._definition import JudgeDefinition, McpServer
from rewardkit.judges.agents._base import AgentReply, CliResult, Invocation, Prepared
from rewardkit.models._usage import Usage

__all__ = ["ClaudeCode"]

TOOLS = ("Read", "Glob", "Grep", "LS", "Bash")
"""Pre-approved for the judge: reading files and running commands."""


class ClaudeCode:
    """Claude Code (`claude`), configured per call through flags."""

    name: ClassVar[str] = "claude-code"
    executable: ClassVar[str] = "claude"
    env_names: ClassVar[frozenset[str]] = frozenset(
        {
            "API_TIMEOUT_MS", "BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_OUTPUT_LENGTH",
            "BASH_MAX_TIMEOUT_MS", "DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING",
            "DISABLE_TELEMETRY", "ENABLE_TOOL_SEARCH", "MAX_THINKING_TOKENS", "MCP_TIMEOUT",
            "MCP_TOOL_TIMEOUT",
        }
    )  # fmt: skip
    env_prefixes: ClassVar[tuple[str, ...]] = ("ANTHROPIC_", "CLAUDE_")
    install_hint: ClassVar[str] = (
        "Install Claude Code with `npm install -g @anthropic-ai/claude-code` (see "
        "https://docs.anthropic.com/en/docs/claude-code), make sure `claude` is on PATH, and "
        "log in or set ANTHROPIC_API_KEY"
    )

    def prepare(
        self, definition: JudgeDefinition, env: Mapping[str, str], scratch: Path
    ) -> Prepared:
        return Prepared(env=dict(env))

    def register_mcp(
        self, definition: JudgeDefinition, exe: str, prepared: Prepared, cwd: Path
    ) -> list[list[str]]:
        """Nothing to run: the servers go in a per-call `--mcp-config` file (`command`)."""
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
        base = definition.allowed_tools or TOOLS
        tools = [*base, *(t for s in definition.mcp_servers for t in _mcp_tools(s))]
        argv = [exe, "-p", prompt, "--output-format", "json", "--json-schema", json.dumps(schema)]
        argv += ["--permission-mode", "default", "--allowedTools", " ".join(tools)]
        if definition.mcp_servers:
            config = scratch / "mcp.json"
            servers = {s.name: _mcp_entry(s) for s in definition.mcp_servers}
            config.write_text(json.dumps({"mcpServers": servers}))
            argv += ["--mcp-config", str(config), "--strict-mcp-config"]
        if definition.model:
            argv += ["--model", definition.model.removeprefix("anthropic/")]
        if definition.reasoning_effort:
            argv += ["--effort", definition.reasoning_effort]
        return Invocation(argv=argv)

    def parse(self, result: CliResult, invocation: Invocation) -> AgentReply:
        envelope = _envelope(result.stdout)
        if envelope is None:
            return AgentReply(error="claude printed no JSON result")
        usage = _usage(envelope)
        session = envelope.get("session_id")
        session_id = session if isinstance(session, str) else None
        text = envelope.get("result")
        if envelope.get("is_error"):
            reason = text if isinstance(text, str) and text else envelope.get("subtype", "error")
            return AgentReply(
                error=f"claude reported an error: {reason}", usage=usage, session_id=session_id
            )
        structured = envelope.get("structured_output")
        if isinstance(structured, dict):
            text = json.dumps(structured)
        if not isinstance(text, str) or not text.strip():
            return AgentReply(error="claude returned no answer", usage=usage, session_id=session_id)
        return AgentReply(text=text, usage=usage, session_id=session_id)

    def native_log(self, session_id: str, prepared: Prepared) -> Path | None:
        home = Path(prepared.env.get("HOME") or Path.home())
        return next((home / ".claude" / "projects").glob(f"*/{session_id}.jsonl"), None)


def _mcp_entry(server: McpServer) -> dict[str, Any]:
    """One server of Claude's `mcpServers` JSON (`$VARS` in it expanded from our env)."""
    if server.transport == "stdio":
        args = [os.path.expandvars(a) for a in server.args]
        return {"type": "stdio", "command": os.path.expandvars(server.command or ""), "args": args}
    transport = "sse" if server.transport == "sse" else "http"
    return {"type": transport, "url": os.path.expandvars(server.url or "")}


def _mcp_tools(server: McpServer) -> list[str]:
    """Claude's tool names: `mcp__<server>__<tool>`, or `mcp__<server>` for all of them."""
    if server.allowed_tools:
        return [f"mcp__{server.name}__{t}" for t in server.allowed_tools]
    return [f"mcp__{server.name}"]


def _envelope(stdout: str) -> dict[str, Any] | None:
    """The result envelope: the whole output, else its last line that is a JSON object."""
    for text in (stdout, *reversed(stdout.splitlines())):
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    return None


def _usage(envelope: Mapping[str, Any]) -> Usage:
    raw = envelope.get("usage")
    counts = raw if isinstance(raw, dict) else {}
    fields = {
        "input_tokens": counts.get("input_tokens"),
        "output_tokens": counts.get("output_tokens"),
        "cache_read_input_tokens": counts.get("cache_read_input_tokens"),
        "cache_creation_input_tokens": counts.get("cache_creation_input_tokens"),
        "cost_usd": envelope.get("total_cost_usd"),
    }
    usage = Usage.from_dict(fields)
    total = (
        usage.input_tokens
        + usage.output_tokens
        + usage.cache_read_input_tokens
        + usage.cache_creation_input_tokens
    )
    return Usage.from_dict({**usage.as_dict(), "total_tokens": total})
