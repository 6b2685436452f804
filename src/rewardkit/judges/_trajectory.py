"""An agent's ATIF trajectory as text (`format_trajectory`) and as LLM judge input
(`render_trajectory`).

Each step renders as `### Step <id> [<source>]`, its message, `[reasoning] …`, one
`[tool_call] name(k="v", n=5)` line per call and one `[result] …` per observation result;
media parts show as `[image]` / `[audio]`. Every step is always kept: when the text is over
the character budget, each content block (a message, a reasoning, a tool call, a result) is
cut to `max(40, budget // n_blocks)` characters, ending in `...`, and one warning says so.
The budget is in characters (about 4 per token), so no tokenizer or model map is needed.

Where the file is read (`trajectory_path`): an absolute path outside the workspace is
Harbor's own log, written by the harness rather than the agent, and is read as given; any
other path is confined to the workspace. Every read goes through `rewardkit.core._untrusted`
(verified after open, capped: `MAX_TRAJECTORY_BYTES`, JSON nesting and values), so a deep,
huge or swapped file is a clear `ValueError`. Images a step references with `source.path`
must stay inside the trajectory file's directory; they are sent as image blocks, and every
medium that cannot be sent (a URL, an escape, a missing or oversized file, audio) becomes a
text note instead.
"""

from __future__ import annotations

import base64
import json
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardkit.core._untrusted import CapExceeded, OutsideWorkspace, confine, loads_json, read_text
from rewardkit.core._untrusted import read_bytes as read_confined
from rewardkit.judges._inputs import IMAGE_TYPES, Block, text_block

__all__ = [
    "MAX_MEDIA_BYTES",
    "MAX_TRAJECTORY_BYTES",
    "MAX_TRAJECTORY_CHARS",
    "format_trajectory",
    "load_trajectory",
    "render_trajectory",
    "trajectory_path",
]

MAX_TRAJECTORY_CHARS = 200_000
"""The default text budget: 200,000 characters, about 50k tokens."""

MAX_MEDIA_BYTES = 20_000_000
"""The most image bytes sent, per file and for the whole trajectory."""

MAX_TRAJECTORY_BYTES = 32 << 20
"""The largest trajectory file read (32 MiB)."""

_MIN_CAP = 40
_EMPTY = "[trajectory empty]"


@dataclass
class _Step:
    """One rendered step: its heading, its truncatable content blocks, its media parts."""

    heading: str
    pieces: list[str]
    media: list[dict[str, Any]] = field(default_factory=list)

    def text(self, cap: int | None) -> str:
        return "\n".join([self.heading, *(_cut(p, cap) for p in self.pieces)])


def trajectory_path(workspace: Path, path: str) -> Path:
    """Where `path` (a judge's `atif-trajectory`) is read from.

    Raises:
        ValueError: a relative path that leaves the workspace.
    """
    try:  # an absolute path outside the workspace is Harbor's own log: read as given
        return confine(workspace, path, author=True)
    except OutsideWorkspace as exc:
        raise ValueError(f"trajectory path {exc}; use a path inside the workspace") from None


def load_trajectory(path: str | Path) -> dict[str, Any]:
    """The trajectory at `path` as a JSON object.

    The file is opened inside its own directory and verified after the open, so a link
    swapped in for it cannot lead elsewhere.

    Raises:
        ValueError: the file is missing, unreadable, over a cap, not JSON, not an object,
            or its `steps` is not a list.
    """
    path = Path(path)
    try:
        text = read_text(path.parent, path.name, author=False, cap=MAX_TRAJECTORY_BYTES)
    except FileNotFoundError:
        raise ValueError(f"Trajectory not found: '{path}'") from None
    except (CapExceeded, OutsideWorkspace) as exc:
        raise ValueError(f"Could not read trajectory '{path}': {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"Could not read trajectory '{path}' ({type(exc).__name__})") from None
    try:
        data = loads_json(text, f"trajectory '{path}'")
    except CapExceeded as exc:
        raise ValueError(f"Could not parse trajectory '{path}': {exc}") from None
    except ValueError as exc:
        raise ValueError(f"Could not parse trajectory '{path}': not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(
            f"Trajectory '{path}' must be a JSON object with 'steps' (got {type(data).__name__})"
        )
    steps = data.get("steps", [])
    if not isinstance(steps, list):
        kind = type(steps).__name__
        raise ValueError(f"Trajectory '{path}': 'steps' must be a list (got {kind})")
    return data


def format_trajectory(
    path: str | Path,
    *,
    max_chars: int = MAX_TRAJECTORY_CHARS,
    max_tokens: int | None = None,
    model: str | None = None,
    warnings_out: list[str] | None = None,
) -> str:
    """The trajectory at `path` as text, within `max_chars` as far as keeping every step allows.

    Args:
        path: the ATIF JSON file.
        max_chars: the character budget.
        max_tokens: Harbor RewardKit's budget; when given, the budget is 4 characters a token.
        model: accepted for RewardKit's signature; the budget counts characters, not a
            model's tokens.
        warnings_out: receives the truncation warning, when there is one.

    Raises:
        ValueError: see `load_trajectory`.

    Example:
        `format_trajectory("/logs/agent/trajectory.json")` starts with
        `## Agent Trajectory (3 steps, agent: claude-code)`.
    """
    del model
    if max_tokens is not None:
        max_chars = 4 * max_tokens
    header, steps = _parse(load_trajectory(path))
    if not steps:
        return _EMPTY
    cap = _cap(header, steps, max_chars, warnings_out)
    return "\n\n".join([header, *(s.text(cap) for s in steps)])


def render_trajectory(
    path: str | Path,
    *,
    max_chars: int = MAX_TRAJECTORY_CHARS,
    warnings_out: list[str] | None = None,
) -> list[Block]:
    """The trajectory at `path` as content blocks: one text block per step (the first with
    the header), each followed by its images or by notes on the media not sent.

    Raises:
        ValueError: see `load_trajectory`.
    """
    path = Path(path)
    header, steps = _parse(load_trajectory(path))
    if not steps:
        return [text_block(_EMPTY)]
    cap = _cap(header, steps, max_chars, warnings_out)
    blocks: list[Block] = []
    budget = [MAX_MEDIA_BYTES]
    for i, step in enumerate(steps):
        text = step.text(cap)
        blocks.append(text_block(f"{header}\n\n{text}" if i == 0 else f"\n{text}"))
        blocks += [_media_block(path.parent, part, budget) for part in step.media]
    return blocks


def _parse(data: dict[str, Any]) -> tuple[str, list[_Step]]:
    agent = data.get("agent")
    name = agent.get("name") if isinstance(agent, dict) else None
    steps = [s for s in data.get("steps", []) if isinstance(s, dict)]
    header = f"## Agent Trajectory ({len(steps)} steps, agent: {name or 'unknown'})"
    return header, [_step(i, s) for i, s in enumerate(steps, start=1)]


def _step(index: int, step: dict[str, Any]) -> _Step:
    media: list[dict[str, Any]] = []
    pieces: list[str] = []
    message = _content(step.get("message"), media)
    if message:
        pieces.append(message)
    reasoning = step.get("reasoning_content")
    if isinstance(reasoning, str) and reasoning:
        pieces.append(f"[reasoning] {reasoning}")
    calls = step.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict):
            pieces.append(f"[tool_call] {_call(call)}")
    observation = step.get("observation")
    results = observation.get("results") if isinstance(observation, dict) else None
    for result in results if isinstance(results, list) else []:
        if isinstance(result, dict):
            pieces.append(f"[result] {_content(result.get('content'), media)}")
    step_id = step.get("step_id", index)
    heading = f"### Step {step_id} [{step.get('source', 'unknown')}]"
    return _Step(heading=heading, pieces=pieces, media=media)


def _content(value: object, media: list[dict[str, Any]]) -> str:
    """A message or result: a string, or parts (text verbatim, media as `[image]`)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return json.dumps(value, ensure_ascii=False)
    texts: list[str] = []
    for part in value:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            texts.append(str(part.get("text", "")))
        elif kind in ("image", "audio"):
            texts.append(f"[{kind}]")
            media.append(part)
        else:
            texts.append(json.dumps(part, ensure_ascii=False))
    return "\n".join(texts)


def _call(call: dict[str, Any]) -> str:
    """`name(k="v", n=5)`: strings quoted verbatim, other values as JSON."""
    args = call.get("arguments")
    if isinstance(args, dict):
        shown = ", ".join(
            f'{k}="{v}"' if isinstance(v, str) else f"{k}={json.dumps(v, ensure_ascii=False)}"
            for k, v in args.items()
        )
    elif args is None:
        shown = ""
    else:
        shown = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return f"{call.get('function_name', '?')}({shown})"


def _cap(
    header: str, steps: Sequence[_Step], budget: int, warnings_out: list[str] | None
) -> int | None:
    """The per-block cap when the text is over `budget`, after recording the warning."""
    total = len("\n\n".join([header, *(s.text(None) for s in steps)]))
    n_blocks = sum(len(s.pieces) for s in steps)
    if total <= budget or n_blocks == 0:
        return None
    cap = max(_MIN_CAP, budget // n_blocks)
    size = len("\n\n".join([header, *(s.text(cap) for s in steps)]))
    if warnings_out is not None:
        warnings_out.append(
            f"Trajectory truncated to {size} characters (budget: {budget}, {n_blocks} content "
            f"blocks, per-block cap: {cap} characters); every step was kept."
        )
    return cap


def _cut(piece: str, cap: int | None) -> str:
    return piece if cap is None or len(piece) <= cap else piece[: cap - 3] + "..."


def _media_block(directory: Path, part: dict[str, Any], budget: list[int]) -> Block:
    """An image part as an image block, or a text note saying why it is not sent.

    `budget` holds the image bytes still allowed for the whole trajectory.
    """
    source = part.get("source")
    ref = source.get("path") if isinstance(source, dict) else None
    kind = part.get("type")
    if not isinstance(ref, str) or not ref:
        return _media_note(kind, "?", "only files referenced by source.path are sent")
    if kind == "audio":
        return _media_note(kind, ref, "audio is not sent to LLM judges")
    if "://" in ref:
        return _media_note(kind, ref, "URLs are not fetched")
    try:
        target = confine(directory, ref, author=False)
    except OutsideWorkspace:
        return _media_note(kind, ref, "outside the trajectory's directory")
    mime = IMAGE_TYPES.get(target.suffix.lower())
    if mime is None:
        return _media_note(kind, ref, f"unsupported image type {target.suffix or '(none)'!r}")
    cap = min(MAX_MEDIA_BYTES, budget[0])
    try:
        info = target.stat()
        if not stat.S_ISREG(info.st_mode):
            return _media_note(kind, ref, "not a regular file")
        if info.st_size > cap:
            size = info.st_size
            return _media_note(kind, ref, f"too large ({size} bytes; the limit is 20 MB in all)")
        data = read_confined(directory, target, author=False, cap=cap)
    except FileNotFoundError:
        return _media_note(kind, ref, "not found")
    except OutsideWorkspace:  # swapped for a link out after the check above
        return _media_note(kind, ref, "outside the trajectory's directory")
    except CapExceeded as exc:  # it grew meanwhile
        return _media_note(kind, ref, str(exc))
    except OSError as exc:
        return _media_note(kind, ref, f"unreadable ({type(exc).__name__})")
    budget[0] -= len(data)
    url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    return {"type": "image_url", "image_url": {"url": url}}


def _media_note(kind: object, ref: str, why: str) -> Block:
    return text_block(f"[{kind} not attached: {ref}: {why}]")
