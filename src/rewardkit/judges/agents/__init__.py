"""Agent-judge backends: the CLIs a judge TOML can name in `[judge].judge`.

Built in: `claude-code` (Anthropic's Claude Code, `claude`), `codex` (OpenAI's Codex
CLI, `codex`) and `fx` (Vercel's fx, `fx`). A backend only describes its CLI
(`AgentBackend`); `AgentJudge` runs it.
Nothing here downloads or installs a CLI: a missing one is an error that says how to
install it.

>>> sorted(AGENT_BACKENDS)
['claude-code', 'codex', 'fx']
"""

from __future__ import annotations

from rewardkit.judges.agents._base import AgentBackend, AgentReply, CliResult, Invocation
from rewardkit.judges.agents.claude_code import ClaudeCode
from rewardkit.judges.agents.codex import Codex
from rewardkit.judges.agents.fx import Fx

__all__ = [
    "AGENT_BACKENDS",
    "AgentBackend",
    "AgentReply",
    "CliResult",
    "Invocation",
    "register_agent",
]

AGENT_BACKENDS: dict[str, AgentBackend] = {}
"""The registered backends by name. A judge TOML naming one runs as an `AgentJudge`."""


def register_agent(backend: AgentBackend) -> AgentBackend:
    """Add `backend` to `AGENT_BACKENDS` under its `name` (a later one replaces it).

    Its name must also be an agent name the judge TOML loader accepts
    (`rewardkit.judges.AGENTS`) for a TOML to select it.
    """
    AGENT_BACKENDS[backend.name] = backend
    return backend


register_agent(ClaudeCode())
register_agent(Codex())
register_agent(Fx())
