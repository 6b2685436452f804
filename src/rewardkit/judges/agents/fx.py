"""The `fx` backend: Vercel's fx agent CLI (`fx ask`), run headless.

One call is `fx --no-additional-dirs ask --json --yolo`, with the prompt on stdin. fx takes
no answer schema: the prompt itself asks for the JSON answer. Each attempt runs with a fresh
`HOME` (fx keeps its profile, and its spend, in `~/.fx`), holding `~/.fx/settings.json`
(the reasoning effort) and `~/.fx/mcp.json` (the MCP servers) when they are set. The
environment adds `FX_AUTO_UPGRADE=0`, `FX_SOUND=0` and `FX_MODEL` (`[judge].model`, else
`openai/gpt-5.6-sol`).

Auth: `AI_GATEWAY_API_KEY` or `VERCEL_OIDC_TOKEN`, read by fx from its environment.

Output: one JSON envelope with `final_output` (the answer), an integer `exit_code`, and
optionally `error`, `usage` (`input_tokens`, `output_tokens`) and `model`.
"""

from __future__ import annotations

import json
import re
import uuid
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

__all__ = ["DEFAULT_MODEL", "Fx"]

DEFAULT_MODEL = "openai/gpt-5.6-sol"
"""The model fx runs when the judge TOML names none."""

_AUTH = ("AI_GATEWAY_API_KEY", "VERCEL_OIDC_TOKEN")
_SERVER_NAME = re.compile(r"[A-Za-z0-9_-]+")


class Fx:
    """The fx CLI (`fx`), with a fresh `HOME` per attempt."""

    name: ClassVar[str] = "fx"
    executable: ClassVar[str] = "fx"
    env_names: ClassVar[frozenset[str]] = frozenset(_AUTH)
    env_prefixes: ClassVar[tuple[str, ...]] = ("FX_",)
    install_hint: ClassVar[str] = (
        "Install fx with `curl -fsSL https://fx.sh/setup.sh | bash` and make sure `fx` is on PATH"
    )

    def prepare(
        self, definition: JudgeDefinition, env: Mapping[str, str], scratch: Path
    ) -> Prepared:
        if not any(env.get(name) for name in _AUTH):
            raise SetupError(
                "fx judge authentication is missing. Set AI_GATEWAY_API_KEY (a Vercel AI "
                "Gateway key) or VERCEL_OIDC_TOKEN in the verifier's environment."
            )
        _mcp_config(definition.mcp_servers)  # reject unusable servers before any call
        out = {
            **env,
            "FX_AUTO_UPGRADE": "0",
            "FX_MODEL": definition.model or DEFAULT_MODEL,
            "FX_SOUND": "0",
        }
        return Prepared(env=out)

    def register_mcp(
        self, definition: JudgeDefinition, exe: str, prepared: Prepared, cwd: Path
    ) -> list[list[str]]:
        return []  # written to each attempt's ~/.fx/mcp.json

    def command(
        self,
        definition: JudgeDefinition,
        exe: str,
        prompt: str,
        schema: dict[str, Any],
        cwd: Path,
        scratch: Path,
    ) -> Invocation:
        home = scratch / f"home-{uuid.uuid4().hex[:8]}"  # fx reports profile-wide spend
        profile = home / ".fx"
        profile.mkdir(parents=True, mode=0o700)
        if definition.reasoning_effort:
            _private(profile / "settings.json", {"effort": definition.reasoning_effort})
        if definition.mcp_servers:
            _private(profile / "mcp.json", {"mcp": _mcp_config(definition.mcp_servers)})
        argv = [exe, "--no-additional-dirs", "ask", "--json", "--yolo"]
        return Invocation(argv=argv, stdin=prompt, env={"HOME": str(home)})

    def parse(self, result: CliResult, invocation: Invocation) -> AgentReply:
        try:
            envelope = json.loads(result.stdout.strip() or "null")
        except ValueError:
            envelope = None
        if not isinstance(envelope, dict):
            return AgentReply(error="fx returned malformed JSON")
        usage = _usage(envelope.get("usage"))
        output = envelope.get("final_output")
        text = output if isinstance(output, str) else ""
        code = envelope.get("exit_code")
        if not isinstance(code, int) or isinstance(code, bool):
            return AgentReply(text=text, usage=usage, error="fx output has no integer exit_code")
        if code != 0:
            detail = envelope.get("error") or f"exit code {code}"
            return AgentReply(text=text, usage=usage, error=f"fx reported an error: {detail}")
        if not text.strip():
            return AgentReply(usage=usage, error="fx returned no answer")
        return AgentReply(text=text, usage=usage)

    def native_log(self, session_id: str, prepared: Prepared) -> Path | None:
        return None  # fx reports no session id


def _mcp_config(servers: tuple[McpServer, ...]) -> dict[str, Any]:
    """The `mcp` table of `~/.fx/mcp.json`; raises SetupError for a server fx cannot use."""
    config: dict[str, Any] = {}
    for server in servers:
        if not _SERVER_NAME.fullmatch(server.name):
            raise SetupError(
                f"MCP server {server.name!r}: fx needs a name of letters, digits, '_' and "
                f"'-' only. Rename it, e.g. {re.sub(r'[^A-Za-z0-9_-]+', '-', server.name)!r}."
            )
        if server.allowed_tools:
            raise SetupError(
                f"MCP server {server.name!r}: fx does not support allowed_tools; remove it."
            )
        entry: dict[str, Any]
        if server.transport == "stdio":
            entry = {"type": "local", "command": [server.command or "", *server.args]}
        else:
            kind = "http" if server.transport == "streamable-http" else "sse"
            entry = {"type": kind, "url": server.url or ""}
        config[server.name] = {**entry, "enabled": True, "required": True}
    return config


def _private(path: Path, data: dict[str, Any]) -> None:
    path.touch(mode=0o600)
    path.write_text(json.dumps(data, indent=2))


def _usage(raw: Any) -> Usage:
    counts = raw if isinstance(raw, dict) else {}
    usage = Usage.from_dict(
        {"input_tokens": counts.get("input_tokens"), "output_tokens": counts.get("output_tokens")}
    )
    total = usage.input_tokens + usage.output_tokens
    return Usage.from_dict({**usage.as_dict(), "total_tokens": total})
