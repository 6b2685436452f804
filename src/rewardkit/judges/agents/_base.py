"""What an agent-judge backend provides, and how its CLI is run.

A backend (`claude-code`, `codex`) knows one CLI: its executable and how to install it, how
to prepare a judge (auth, MCP servers), the command line of one call, and how to read the
CLI's output back into the reply text, the token usage and the session id. Running the
process, retrying and scoring are the judge's (`rewardkit.judges._agent`), shared by all.

`run_cli` starts the CLI in its own session and, at the deadline, kills the whole process
group, then waits briefly for buffered output: a hung agent (or a tool it started) never
outlives its timeout. With a `limit`, only the last `limit` bytes of each stream are kept
(the rest is read and dropped, so a chatty CLI never blocks on a full pipe).

`prepare_agent` is the one place that decides what a CLI's environment holds: the backend's
`prepare` sees the verifier's environment, and what it returns is reduced to the allow-list
(`agent_env`): what any CLI needs to run, the backend's own variables, and the names listed
in `REWARDKIT_AGENT_ENV` (explicit, like `--judge-env`). Nothing else of the verifier's
environment (cloud credentials, database URLs, ...) reaches the CLI or the tools it runs.

Over 350 lines: the backend protocol and the one process runner that all backends share.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Protocol

from rewardkit.judges._definition import JudgeDefinition
from rewardkit.models._usage import Usage

__all__ = [
    "AGENT_ENV",
    "COMMON_ENV",
    "COMMON_ENV_PREFIXES",
    "AgentBackend",
    "AgentReply",
    "CliResult",
    "Invocation",
    "Prepared",
    "SetupError",
    "agent_env",
    "attempt_log",
    "log_dir",
    "prepare_agent",
    "redact",
    "run_cli",
    "save_log",
]

DRAIN_SECONDS = 2.0
"""After the kill, how long to wait for output still buffered in the pipes."""

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|AUTH", re.IGNORECASE)

COMMON_ENV = frozenset(
    {
        # to run at all: find programs, a home, a user, a shell for the tools, a terminal
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "TZ", "LANG", "LANGUAGE",
        # to reach the provider from behind a proxy or a private certificate authority
        "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
        "http_proxy", "https_proxy", "no_proxy", "all_proxy",
        "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
        "NODE_EXTRA_CA_CERTS",
    }
)  # fmt: skip
"""Variables every agent CLI gets from the verifier's environment (when set there)."""
COMMON_ENV_PREFIXES = ("LC_", "XDG_")
"""Locale (`LC_ALL`, ...) and base directories (`XDG_CONFIG_HOME`, ...): names, no secrets."""
AGENT_ENV = "REWARDKIT_AGENT_ENV"
"""Comma-separated names of more variables to pass to agent CLIs, e.g. `AWS_REGION,AWS_PROFILE`
for Claude Code on Bedrock. The contract for `--judge-env KEY=VALUE`: list `KEY` here."""


class SetupError(Exception):
    """A judge cannot run at all (missing auth, unusable MCP server); the message says how
    to fix it, and every criterion of the judge is recorded as an error with it."""


@dataclass(frozen=True, kw_only=True)
class Prepared:
    """What a backend set up for one judge run: the CLI's environment and its own state."""

    env: dict[str, str]
    home: Path | None = None
    """A private config directory (codex's `CODEX_HOME`), removed after the run."""


@dataclass(frozen=True, kw_only=True)
class Invocation:
    """One CLI call: the command line, what goes to stdin, and where the answer lands."""

    argv: list[str]
    stdin: str | None = None
    """Text for stdin; `None` connects stdin to /dev/null."""
    answer_file: Path | None = None
    """A file the CLI writes its final message to (codex's `--output-last-message`)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables set for this call only, over the prepared environment (fx's fresh `HOME`)."""
    output_cap: int | None = None
    """The most bytes kept of stdout and of stderr, each (their ends); None keeps all."""


@dataclass(frozen=True)
class CliResult:
    """What a CLI process did. `returncode` is `None` when it was killed at its timeout."""

    returncode: int | None
    stdout: str
    stderr: str

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


@dataclass(frozen=True, kw_only=True)
class AgentReply:
    """A CLI's output, read: the answer text, or the CLI's own account of its failure."""

    text: str = ""
    """The answer (JSON text, or prose with JSON in it); "" when there was none."""
    error: str | None = None
    """Why the call failed (`is_error`, `turn.failed`, ...); retried by the judge."""
    usage: Usage = field(default_factory=Usage)
    session_id: str | None = None


class AgentBackend(Protocol):
    """One agent CLI. Backends are stateless: per-run state lives in `Prepared`."""

    name: ClassVar[str]
    """The `[judge].judge` value that selects this backend, e.g. `claude-code`."""
    executable: ClassVar[str]
    """The program looked up on PATH, e.g. `claude`."""
    env_names: ClassVar[frozenset[str]]
    """Variables of the verifier's environment this CLI also gets (its key, its settings)."""
    env_prefixes: ClassVar[tuple[str, ...]]
    """Prefixes of the variables it also gets, e.g. `("ANTHROPIC_",)`."""
    install_hint: ClassVar[str]
    """How to install the CLI, for the error when it is missing (never done for you)."""

    def prepare(
        self, definition: JudgeDefinition, env: Mapping[str, str], scratch: Path
    ) -> Prepared:
        """Auth and configuration for one judge run; `scratch` is a private temp directory.

        `env` is the verifier's environment, to read from. The environment returned is
        then reduced to the allow-list (`agent_env`), so a variable added here must match
        `env_names` or `env_prefixes`. Call it through `prepare_agent`.

        Raises:
            SetupError: when the judge cannot run (the message says how to fix it).
        """
        ...

    def register_mcp(
        self, definition: JudgeDefinition, exe: str, prepared: Prepared, cwd: Path
    ) -> list[list[str]]:
        """Commands to run in `cwd` before a call; [] for none."""
        ...

    def command(
        self,
        definition: JudgeDefinition,
        exe: str,
        prompt: str,
        schema: dict[str, Any],
        cwd: Path,
        scratch: Path,
    ) -> Invocation:
        """The command line of one call, run in `cwd`; files it needs go in `scratch`."""
        ...

    def parse(self, result: CliResult, invocation: Invocation) -> AgentReply:
        """Read the CLI's output (and answer file) into a reply."""
        ...

    def native_log(self, session_id: str, prepared: Prepared) -> Path | None:
        """The CLI's own session log for `session_id`, when it can be found."""
        ...


def agent_env(backend: AgentBackend, env: Mapping[str, str]) -> dict[str, str]:
    """`env` reduced to what `backend`'s CLI may see.

    Kept: `COMMON_ENV`, names starting with `COMMON_ENV_PREFIXES`, the backend's
    `env_names` and `env_prefixes`, and the names listed in `env[REWARDKIT_AGENT_ENV]`.
    Everything else is dropped: never put a secret in a child process's environment that
    the child does not need.

    >>> from rewardkit.judges.agents import AGENT_BACKENDS
    >>> env = {"PATH": "/bin", "OPENAI_API_KEY": "sk-1", "AWS_SECRET_ACCESS_KEY": "s3cr3t"}
    >>> sorted(agent_env(AGENT_BACKENDS["codex"], env))
    ['OPENAI_API_KEY', 'PATH']
    """
    listed = {name.strip() for name in env.get(AGENT_ENV, "").split(",")}
    names = COMMON_ENV | backend.env_names | listed
    prefixes = COMMON_ENV_PREFIXES + backend.env_prefixes
    return {k: v for k, v in env.items() if k in names or k.startswith(prefixes)}


def prepare_agent(
    backend: AgentBackend,
    definition: JudgeDefinition,
    scratch: Path,
    env: Mapping[str, str] | None = None,
) -> Prepared:
    """`backend.prepare` on `env` (default: the verifier's environment), with the
    environment it returns reduced by `agent_env`: the one way every agent kind is set up.

    Raises:
        SetupError: when the judge cannot run (the message says how to fix it).
    """
    prepared = backend.prepare(definition, os.environ if env is None else env, scratch)
    return replace(prepared, env=agent_env(backend, prepared.env))


async def run_cli(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    stdin: str | None = None,
    limit: int | None = None,
) -> CliResult:
    """Run `argv` in `cwd`; at `timeout` seconds kill its process group and drain briefly.

    `limit` caps what is kept of stdout and of stderr, each: their last `limit` bytes, after
    a line saying how many were cut.

    Raises:
        OSError: when the program cannot be started.
    """
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=dict(env),
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    out, err = _Sink(limit), _Sink(limit)
    io = asyncio.gather(_read(proc.stdout, out), _read(proc.stderr, err), _feed(proc, stdin))
    everything = asyncio.gather(io, proc.wait())
    try:
        await asyncio.wait_for(asyncio.shield(everything), timeout)
    except TimeoutError:
        _kill_group(proc.pid)
        try:  # a grandchild in a session of its own may hold the pipes open
            await asyncio.wait_for(asyncio.shield(io), DRAIN_SECONDS)
        except TimeoutError:
            io.cancel()
        await proc.wait()
        return CliResult(None, out.text(), err.text())
    finally:
        if proc.returncode is None:  # cancelled from outside: never leave the group behind
            _kill_group(proc.pid)
            everything.cancel()
            with contextlib.suppress(BaseException):
                await proc.wait()
    return CliResult(proc.returncode, out.text(), err.text())


@dataclass
class _Sink:
    """What is kept of one output stream: all of it, or its last `limit` bytes."""

    limit: int | None
    data: bytearray = field(default_factory=bytearray)
    seen: int = 0

    def add(self, chunk: bytes) -> None:
        self.seen += len(chunk)
        self.data.extend(chunk)
        if self.limit is not None and len(self.data) > 2 * self.limit:  # trim now and then
            del self.data[: len(self.data) - self.limit]

    def text(self) -> str:
        kept = self.data if self.limit is None else self.data[-self.limit :]
        cut = self.seen - len(kept)
        head = f"[... {cut} bytes cut ...]\n" if cut else ""
        return head + kept.decode(errors="replace")


async def _read(stream: asyncio.StreamReader | None, sink: _Sink) -> None:
    while stream is not None and (chunk := await stream.read(65536)):
        sink.add(chunk)


async def _feed(proc: asyncio.subprocess.Process, text: str | None) -> None:
    if text is None or proc.stdin is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        proc.stdin.write(text.encode())
        await proc.stdin.drain()
    proc.stdin.close()


def _kill_group(pid: int) -> None:
    if pid <= 1:  # never signal init's group or our own by accident
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def redact(text: str, env: Mapping[str, str]) -> str:
    """`text` with the values of secret-looking variables of `env`, and of the verifier's own
    environment, replaced by `***` (a `cli` runner's `JUDGE_CRED: $ANTHROPIC_API_KEY` gives a
    secret a harmless name)."""
    for name, value in {**os.environ, **env}.items():
        if _SECRET_NAME.search(name) and len(value) >= 8 and value in text:
            text = text.replace(value, "***")
    return text


def log_dir() -> Path | None:
    """Where judge logs go: `$REWARDKIT_LOG_DIR`, else `/logs/verifier` when `/logs` exists."""
    configured = os.environ.get("REWARDKIT_LOG_DIR")
    if configured:
        return Path(configured)
    return Path("/logs/verifier") if Path("/logs").is_dir() else None


def save_log(stem: str, suffix: str, text: str) -> list[str]:
    """Write `text` to a new file in the log directory; its path, or [] without one."""
    directory = log_dir()
    if directory is None:
        return []
    try:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{stem}.{uuid.uuid4().hex[:8]}.{suffix}"
        path.write_text(text)
    except OSError:  # a log that cannot be written must not cost the score
        return []
    return [str(path)]


def attempt_log(inv: Invocation, result: CliResult, env: Mapping[str, str]) -> str:
    status = "killed at the timeout" if result.timed_out else f"exit code {result.returncode}"
    program = " ".join(inv.argv[:2])[:200]  # a `cli` command may carry the prompt
    return redact(
        f"$ {program} ...\n{status}\n--- stdout ---\n{result.stdout}\n--- stderr ---\n"
        f"{result.stderr}",
        env,
    )
