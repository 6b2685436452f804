"""The `codex` backend: OpenAI's Codex CLI (`codex exec`), run headless.

One call is `codex exec --json --strict-config --sandbox danger-full-access
--skip-git-repo-check --output-schema <file> --output-last-message <file> [-m M]
[-c model_reasoning_effort=E] -C <cwd> -`, with the prompt on stdin. `danger-full-access`
lets the judge run commands in containers where Codex's own sandbox cannot start; use
`isolated = true` to keep the workspace untouched.

Each judge run gets a fresh temporary `CODEX_HOME` holding `config.toml` (the MCP servers)
and, for a ChatGPT subscription, `auth.json`. Auth: `OPENAI_API_KEY`, handed to the CLI as
`CODEX_API_KEY` in its environment (never on the command line), or the contents of an
`auth.json` in `CODEX_AUTH_JSON`. The key wins unless `REWARDKIT_FORCE_SUBSCRIPTION` is set.

Output: JSON Lines events, of which we read `thread.started` (the session id),
`item.completed` with an `agent_message` item, `turn.completed` (usage), `turn.failed`
and `error`; the final message is also written to the `--output-last-message` file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from rewardkit.judges._definition import JudgeDefinition, McpServer
from rewardkit.judges.agents._base import (
    AgentReply,
    CliResult,
    Invocation,
    Prepared,
    SetupError,
)
from rewardkit.models._usage import Usage

__all__ = ["Codex"]

_TRUE = ("1", "true", "yes", "on")


class Codex:
    """The Codex CLI (`codex`), configured through a private `CODEX_HOME`."""

    name: ClassVar[str] = "codex"
    executable: ClassVar[str] = "codex"
    env_names: ClassVar[frozenset[str]] = frozenset()
    env_prefixes: ClassVar[tuple[str, ...]] = ("CODEX_", "OPENAI_")
    install_hint: ClassVar[str] = (
        "Install the Codex CLI with `npm install -g @openai/codex` (see "
        "https://github.com/openai/codex) and make sure `codex` is on PATH"
    )

    def prepare(
        self, definition: JudgeDefinition, env: Mapping[str, str], scratch: Path
    ) -> Prepared:
        out = dict(env)
        home = scratch / "codex-home"
        home.mkdir()
        key = env.get("OPENAI_API_KEY", "")
        auth = env.get("CODEX_AUTH_JSON", "")
        force = env.get("REWARDKIT_FORCE_SUBSCRIPTION", "").lower() in _TRUE
        if key and not (force and auth):
            out["CODEX_API_KEY"] = key
        elif auth:
            _write_auth(home / "auth.json", auth)
        else:
            raise SetupError(
                "Codex judge authentication is missing. Set OPENAI_API_KEY, or put the "
                "contents of a ChatGPT subscription's auth.json (~/.codex/auth.json after "
                "`codex login`) in CODEX_AUTH_JSON."
            )
        (home / "config.toml").write_text(_config_toml(definition.mcp_servers))
        out["CODEX_HOME"] = str(home)
        return Prepared(env=out, home=home)

    def register_mcp(
        self, definition: JudgeDefinition, exe: str, prepared: Prepared, cwd: Path
    ) -> list[list[str]]:
        return []  # in config.toml already

    def command(
        self,
        definition: JudgeDefinition,
        exe: str,
        prompt: str,
        schema: dict[str, Any],
        cwd: Path,
        scratch: Path,
    ) -> Invocation:
        schema_file = scratch / "schema.json"
        schema_file.write_text(json.dumps(schema))
        answer = scratch / "last-message.txt"
        argv = [exe, "exec", "--json", "--strict-config", "--sandbox", "danger-full-access"]
        argv += ["--skip-git-repo-check", "--output-schema", str(schema_file)]
        argv += ["--output-last-message", str(answer)]
        if definition.model:
            argv += ["-m", definition.model.removeprefix("openai/")]
        if definition.reasoning_effort:
            argv += ["-c", f"model_reasoning_effort={definition.reasoning_effort}"]
        argv += ["-C", str(cwd), "-"]
        return Invocation(argv=argv, stdin=prompt, answer_file=answer)

    def parse(self, result: CliResult, invocation: Invocation) -> AgentReply:
        thread: str | None = None
        message = ""
        failure: str | None = None
        usage = Usage()
        for event in _events(result.stdout):
            kind = event.get("type")
            if kind == "thread.started" and isinstance(event.get("thread_id"), str):
                thread = event["thread_id"]
            elif kind == "item.completed":
                item = event.get("item")
                if isinstance(item, dict) and item.get("type") == "agent_message":
                    message = str(item.get("text") or "")
            elif kind == "turn.completed":
                usage = usage + _usage(event.get("usage"))
            elif kind == "turn.failed":
                error = event.get("error")
                failure = str(error.get("message") if isinstance(error, dict) else error)
            elif kind == "error":
                failure = failure or str(event.get("message"))
        answer = invocation.answer_file
        if answer is not None and answer.is_file() and answer.read_text().strip():
            message = answer.read_text()
        if message.strip():  # an `error` event may be a reconnect the turn survived
            return AgentReply(text=message, usage=usage, session_id=thread)
        reason = f"codex reported an error: {failure}" if failure else "codex returned no answer"
        return AgentReply(error=reason, usage=usage, session_id=thread)

    def native_log(self, session_id: str, prepared: Prepared) -> Path | None:
        if prepared.home is None:
            return None
        return next((prepared.home / "sessions").rglob(f"*{session_id}*.jsonl"), None)


def _write_auth(path: Path, text: str) -> None:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SetupError(
            f"CODEX_AUTH_JSON is not valid JSON ({exc}). Put the whole contents of "
            f"~/.codex/auth.json in it."
        ) from None
    if not isinstance(data, dict):
        raise SetupError("CODEX_AUTH_JSON must hold a JSON object (the contents of auth.json).")
    path.touch(mode=0o600)
    path.write_text(text)


def _config_toml(servers: tuple[McpServer, ...]) -> str:
    lines: list[str] = []
    for server in servers:
        if server.transport == "sse":
            raise SetupError(
                f"MCP server {server.name!r}: codex does not support transport = 'sse'. Use "
                f"transport = 'streamable-http' (with url) or 'stdio' (with command)."
            )
        lines.append(f"[mcp_servers.{json.dumps(server.name)}]")
        if server.transport == "stdio":
            lines.append(f"command = {json.dumps(server.command or '')}")
            lines.append(f"args = {json.dumps(list(server.args))}")
        else:
            lines.append(f"url = {json.dumps(server.url or '')}")
        if server.allowed_tools:
            lines.append(f"enabled_tools = {json.dumps(list(server.allowed_tools))}")
        lines += ['default_tools_approval_mode = "approve"', ""]
    return "\n".join(lines)


def _events(stdout: str) -> list[dict[str, Any]]:
    events = []
    for line in stdout.splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict):
            events.append(data)
    return events


def _usage(raw: Any) -> Usage:
    counts = raw if isinstance(raw, dict) else {}
    usage = Usage.from_dict(
        {
            "input_tokens": counts.get("input_tokens"),
            "output_tokens": counts.get("output_tokens"),
            "cache_read_input_tokens": counts.get("cached_input_tokens"),
            "reasoning_output_tokens": counts.get("reasoning_output_tokens"),
        }
    )
    total = usage.input_tokens + usage.output_tokens
    return Usage.from_dict({**usage.as_dict(), "total_tokens": total})
