"""A fake `claude` / `codex` / `fx` for the agent-judge tests, speaking the real CLIs' formats.

Installed by the `agents` fixture as executables named `claude`, `codex` and `fx`. Every run is
recorded in `$FAKE_AGENT_DIR/calls.jsonl`; what the n-th answering run does is step n of
`$FAKE_AGENT_DIR/script.json` (the last step repeats). A step is an object:

- `{}` or `{"score": "no"}`: answer every criterion the schema asks for;
- `{"exit": 3, "stderr": "boom"}`: fail with that exit code;
- `{"text": "..."}`: answer with this text instead of the JSON;
- `{"is_error": true}`: claude's error envelope / codex's `turn.failed`;
- `{"hang": true}`: start a grandchild `sleep` and sleep, until killed;
- `{"write": "name"}`: also write a file in the working directory;
- `{"value": 4}`: the `score` of an eval.yaml answer (`{"score", "rationale"}` schema;
  default true, or 4 for a number);
- `{"score_file": {...}}`: also write that object to `output/score.json` in the working
  directory (as eval.yaml agent judges are asked to);
- `{"sleep": 0.3}`: sleep that long before answering.

Each answering run also records `start` and `end` times in `$FAKE_AGENT_DIR/spans.jsonl`,
and its whole environment under `environ` in calls.jsonl. The CLIs get only an allow-listed
environment, so the `agents` fixture lists `FAKE_AGENT_DIR` and `FAKE_VERSION` in
`REWARDKIT_AGENT_ENV` (as `--judge-env` would).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

CTL = Path(os.environ.get("FAKE_AGENT_DIR", "."))
NAME = Path(sys.argv[0]).name


def record(entry: dict[str, Any]) -> int:
    """Append `entry` to calls.jsonl; return how many answering runs came before it."""
    with (CTL / "calls.jsonl").open("a+") as log:
        fcntl.flock(log, fcntl.LOCK_EX)
        log.seek(0)
        before = sum(1 for line in log if json.loads(line).get("run"))
        log.write(json.dumps(entry) + "\n")
    return before


def answer(schema: dict[str, Any], score: Any, s: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties", {})
    if set(props) == {"score", "rationale"}:  # an eval.yaml agent judge
        default = True if props["score"].get("type") == "boolean" else 4
        return {"score": s.get("value", default), "rationale": "explored the case"}
    if set(props) == {"score", "reasoning"}:
        return {"score": score, "reasoning": "looked at it"}
    return {name: {"score": score, "reasoning": "looked at it"} for name in props}


def listing() -> list[str]:
    """The files under the working directory, relative to it."""
    root = Path.cwd()
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def step(n: int) -> dict[str, Any]:
    script = (
        json.loads((CTL / "script.json").read_text()) if (CTL / "script.json").exists() else [{}]
    )
    return script[min(n, len(script) - 1)]


def act(s: dict[str, Any]) -> None:
    """What a step does before the answer: write files, sleep, hang."""
    started = time.time()
    if "write" in s:
        Path(s["write"]).write_text("written by the judge\n")
    if "score_file" in s:
        Path("output").mkdir(exist_ok=True)
        Path("output", "score.json").write_text(json.dumps(s["score_file"]))
    time.sleep(float(s.get("sleep", 0)))
    with (CTL / "spans.jsonl").open("a") as spans:
        spans.write(json.dumps({"start": started, "end": time.time()}) + "\n")
    if s.get("hang"):
        hang()


def hang() -> None:
    child = subprocess.Popen(["sleep", "60"])
    (CTL / "grandchild.pid").write_text(str(child.pid))
    time.sleep(60)


def claude(args: list[str]) -> int:
    if args[:1] == ["--version"]:
        print(os.environ.get("FAKE_VERSION", "2.1.0 (Claude Code)"))
        return 0
    if args[:2] == ["mcp", "add"]:
        record({"mcp": args[2:], "cwd": os.getcwd()})
        return 0
    prompt = args[args.index("-p") + 1]
    schema = json.loads(args[args.index("--json-schema") + 1])
    entry = {"run": True, "argv": args, "cwd": os.getcwd(), "prompt": prompt, "listing": listing()}
    entry["environ"] = dict(os.environ)
    if "--mcp-config" in args:
        entry["mcp_config"] = json.loads(Path(args[args.index("--mcp-config") + 1]).read_text())
    n = record(entry)
    s = step(n)
    act(s)
    if "exit" in s:
        print(s.get("stderr", "boom"), file=sys.stderr)
        return int(s["exit"])
    session = str(uuid.uuid4())
    envelope: dict[str, Any] = {
        "type": "result",
        "subtype": "success",
        "is_error": bool(s.get("is_error")),
        "duration_ms": 1200,
        "num_turns": 3,
        "result": s.get("text", "Done."),
        "session_id": session,
        "total_cost_usd": 0.0125,
        "usage": {
            "input_tokens": 100,
            "cache_creation_input_tokens": 10,
            "cache_read_input_tokens": 5,
            "output_tokens": 20,
        },
    }
    if s.get("is_error"):
        envelope["subtype"] = "error_during_execution"
        envelope["result"] = "API Error: overloaded"
    elif "text" not in s:
        envelope["structured_output"] = answer(schema, s.get("score", "yes"), s)
    home = Path(os.environ["HOME"]) / ".claude" / "projects" / "-ws"
    home.mkdir(parents=True, exist_ok=True)
    (home / f"{session}.jsonl").write_text(json.dumps({"type": "user", "session": session}) + "\n")
    print(json.dumps(envelope))
    return 0


def codex(args: list[str]) -> int:
    if args[:1] == ["--version"]:
        print(os.environ.get("FAKE_VERSION", "codex-cli 0.46.0"))
        return 0
    prompt = sys.stdin.read()
    schema = json.loads(Path(args[args.index("--output-schema") + 1]).read_text())
    last = Path(args[args.index("--output-last-message") + 1])
    home = Path(os.environ["CODEX_HOME"])
    env = {k: os.environ.get(k) for k in ("CODEX_API_KEY", "CODEX_HOME")}
    files = {p.name: p.read_text() for p in home.iterdir() if p.is_file()}
    n = record(
        {
            "run": True,
            "argv": args,
            "cwd": os.getcwd(),
            "prompt": prompt,
            "env": env,
            "home": files,
            "listing": listing(),
            "environ": dict(os.environ),
        }
    )
    s = step(n)
    act(s)
    if "exit" in s:
        print(s.get("stderr", "boom"), file=sys.stderr)
        return int(s["exit"])
    thread = str(uuid.uuid4())
    events: list[dict[str, Any]] = [
        {"type": "thread.started", "thread_id": thread},
        {"type": "turn.started"},
    ]
    if s.get("is_error"):
        events += [
            {"type": "error", "message": "stream disconnected"},
            {"type": "turn.failed", "error": {"message": "unexpected status 401 Unauthorized"}},
        ]
    else:
        text = s.get("text") or json.dumps(answer(schema, s.get("score", "yes"), s))
        events += [
            {"type": "item.completed", "item": {"id": "item_0", "type": "reasoning", "text": "hm"}},
            {
                "type": "item.completed",
                "item": {"id": "item_1", "type": "agent_message", "text": text},
            },
            {
                "type": "turn.completed",
                "usage": {"input_tokens": 200, "cached_input_tokens": 50, "output_tokens": 30},
            },
        ]
        last.write_text(text)
    sessions = home / "sessions" / "2025" / "01" / "01"
    sessions.mkdir(parents=True, exist_ok=True)
    (sessions / f"rollout-2025-01-01T00-00-00-{thread}.jsonl").write_text("{}\n")
    for event in events:
        print(json.dumps(event), flush=True)
    return 0


def fx(args: list[str]) -> int:
    if args[:1] == ["--version"]:
        print(os.environ.get("FAKE_VERSION", "fx 1.4.0"))
        return 0
    prompt = sys.stdin.read()
    home = Path(os.environ["HOME"])
    names = ("HOME", "FX_AUTO_UPGRADE", "FX_MODEL", "FX_SOUND", "AI_GATEWAY_API_KEY")
    profile = home / ".fx"
    files = {p.name: p.read_text() for p in profile.iterdir()} if profile.is_dir() else {}
    entry = {"run": True, "argv": args, "cwd": os.getcwd(), "prompt": prompt, "home": files}
    env = {k: os.environ.get(k) for k in names}
    n = record({**entry, "env": env, "listing": listing(), "environ": dict(os.environ)})
    s = step(n)
    act(s)
    if "exit" in s:
        print(s.get("stderr", "boom"), file=sys.stderr)
        return int(s["exit"])
    wanted = re.findall(r"^- ([a-z0-9_]+): ", prompt, re.MULTILINE)  # no schema: the prompt
    flat = {"score": {}, "reasoning": {}}
    schema = {"properties": flat if len(wanted) == 1 else {key: {} for key in wanted}}
    envelope: dict[str, Any] = {
        "exit_code": 0,
        "final_output": s.get("text") or json.dumps(answer(schema, s.get("score", "yes"), s)),
        "model": os.environ.get("FX_MODEL"),
        "usage": {"input_tokens": 300, "output_tokens": 40},
    }
    if s.get("is_error"):
        envelope.update(exit_code=1, final_output="", error="gateway returned 401")
    print(json.dumps(envelope))
    return 0


if __name__ == "__main__":
    sys.exit({"claude": claude, "codex": codex, "fx": fx}[NAME](sys.argv[1:]))
