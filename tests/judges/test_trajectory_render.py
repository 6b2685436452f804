"""ATIF trajectories rendered for LLM judges: text, media, truncation, paths and errors."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest

from rewardkit.judges import format_trajectory, render_trajectory
from rewardkit.judges._trajectory import trajectory_path

PNG = b"\x89PNG\r\n\x1a\nfake"


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


FULL = {
    "agent": {"name": "claude-code"},
    "steps": [
        {"step_id": 1, "source": "user", "message": "Fix the bug."},
        {
            "step_id": 2,
            "source": "agent",
            "message": [{"type": "text", "text": "Looking."}, {"type": "audio", "source": {}}],
            "reasoning_content": "The bug is in main.py.",
            "tool_calls": [
                {"function_name": "read", "arguments": {"path": "main.py", "n": 5, "all": True}},
                {"function_name": "bash", "arguments": "ls -la"},
            ],
            "observation": {
                "results": [
                    {"content": "print('hi')"},
                    {"content": [{"type": "text", "text": "a.py"}, {"type": "image"}]},
                ]
            },
        },
    ],
}


def test_every_atif_field_is_rendered(tmp_path: Path) -> None:
    text = format_trajectory(write(tmp_path / "t.json", FULL))
    assert text == (
        "## Agent Trajectory (2 steps, agent: claude-code)\n\n"
        "### Step 1 [user]\nFix the bug.\n\n"
        "### Step 2 [agent]\nLooking.\n[audio]\n"
        "[reasoning] The bug is in main.py.\n"
        '[tool_call] read(path="main.py", n=5, all=true)\n'
        "[tool_call] bash(ls -la)\n"
        "[result] print('hi')\n"
        "[result] a.py\n[image]"
    )


def test_blocks_carry_the_same_text_with_the_header_first(tmp_path: Path) -> None:
    blocks = render_trajectory(write(tmp_path / "t.json", FULL))
    texts = [b["text"] for b in blocks if b["type"] == "text"]
    assert texts[0].startswith("## Agent Trajectory (2 steps, agent: claude-code)\n\n### Step 1")
    assert texts[1].startswith("\n### Step 2 [agent]")
    # the audio part and the image without a path are named, not sent
    assert "[audio not attached: ?: only files referenced by source.path are sent]" in texts
    assert all(b["type"] == "text" for b in blocks)


def test_an_empty_trajectory_says_so(tmp_path: Path) -> None:
    path = write(tmp_path / "t.json", {"agent": {"name": "x"}, "steps": []})
    assert format_trajectory(path) == "[trajectory empty]"
    assert render_trajectory(path) == [{"type": "text", "text": "[trajectory empty]"}]
    assert format_trajectory(write(tmp_path / "u.json", {})) == "[trajectory empty]"


def test_missing_fields_fall_back(tmp_path: Path) -> None:
    path = write(tmp_path / "t.json", {"steps": [{}, "not a step", {"tool_calls": [{}]}]})
    assert format_trajectory(path) == (
        "## Agent Trajectory (2 steps, agent: unknown)\n\n"
        "### Step 1 [unknown]\n\n### Step 2 [unknown]\n[tool_call] ?()"
    )


def media_step(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"steps": [{"step_id": 1, "source": "agent", "message": list(parts)}]}


def image(path: str) -> dict[str, Any]:
    return {"type": "image", "source": {"path": path, "media_type": "image/png"}}


def test_an_image_next_to_the_trajectory_is_sent(tmp_path: Path) -> None:
    (tmp_path / "shots").mkdir()
    (tmp_path / "shots" / "a.png").write_bytes(PNG)
    blocks = render_trajectory(write(tmp_path / "t.json", media_step(image("shots/a.png"))))
    assert "[image]" in blocks[0]["text"]
    url = f"data:image/png;base64,{base64.b64encode(PNG).decode()}"
    assert blocks[1] == {"type": "image_url", "image_url": {"url": url}}


@pytest.mark.parametrize(
    ("ref", "why"),
    [
        ("../secret.png", "outside the trajectory's directory"),
        ("/etc/passwd.png", "outside the trajectory's directory"),
        ("https://example.com/a.png", "URLs are not fetched"),
        ("missing.png", "not found"),
        ("notes.txt", "unsupported image type '.txt'"),
    ],
)
def test_media_that_cannot_be_sent_becomes_a_note(tmp_path: Path, ref: str, why: str) -> None:
    (tmp_path / "secret.png").write_bytes(PNG)
    (tmp_path / "run" / "notes.txt").parent.mkdir()
    (tmp_path / "run" / "notes.txt").write_text("x")
    blocks = render_trajectory(write(tmp_path / "run" / "t.json", media_step(image(ref))))
    assert blocks[1] == {"type": "text", "text": f"[image not attached: {ref}: {why}]"}


def test_audio_is_named_not_sent(tmp_path: Path) -> None:
    (tmp_path / "a.wav").write_bytes(b"RIFF")
    audio = {"type": "audio", "source": {"path": "a.wav"}}
    blocks = render_trajectory(write(tmp_path / "t.json", media_step(audio)))
    assert "[audio]" in blocks[0]["text"]
    assert blocks[1]["text"] == "[audio not attached: a.wav: audio is not sent to LLM judges]"


def test_images_over_the_media_budget_become_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("rewardkit.judges._trajectory.MAX_MEDIA_BYTES", len(PNG) + 1)
    (tmp_path / "a.png").write_bytes(PNG)
    (tmp_path / "b.png").write_bytes(PNG)
    blocks = render_trajectory(
        write(tmp_path / "t.json", media_step(image("a.png"), image("b.png")))
    )
    assert blocks[1]["type"] == "image_url"
    assert blocks[2]["text"].startswith("[image not attached: b.png: too large (12 bytes;")


def test_over_budget_every_step_is_kept_and_blocks_are_cut(tmp_path: Path) -> None:
    steps = [
        {"step_id": i, "source": "agent", "message": "m" * 500, "reasoning_content": "r" * 500}
        for i in range(1, 11)
    ]
    path = write(tmp_path / "t.json", {"agent": {"name": "a"}, "steps": steps})
    warnings: list[str] = []
    text = format_trajectory(path, max_chars=2000, warnings_out=warnings)
    assert all(f"### Step {i} [agent]" in text for i in range(1, 11))
    cap = 2000 // 20
    assert ("m" * (cap - 3) + "...") in text
    assert ("[reasoning] " + "r" * (cap - 15) + "...") in text
    assert warnings == [
        f"Trajectory truncated to {len(text)} characters (budget: 2000, 20 content blocks, "
        f"per-block cap: {cap} characters); every step was kept."
    ]
    blocks = render_trajectory(path, max_chars=2000)
    assert "\n".join(b["text"] for b in blocks) == text  # same text, one block per step


def test_the_per_block_cap_has_a_floor(tmp_path: Path) -> None:
    steps = [{"step_id": i, "message": "x" * 100} for i in range(50)]
    warnings: list[str] = []
    text = format_trajectory(
        write(tmp_path / "t.json", {"steps": steps}), max_chars=100, warnings_out=warnings
    )
    assert "x" * 37 + "..." in text
    assert "per-block cap: 40 characters" in warnings[0]


def test_within_budget_nothing_is_cut_or_warned(tmp_path: Path) -> None:
    warnings: list[str] = []
    format_trajectory(write(tmp_path / "t.json", FULL), warnings_out=warnings)
    assert warnings == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "Trajectory not found: '{path}'"),
        ("{not json", "Could not parse trajectory '{path}': not valid JSON"),
        ("[1, 2]", "Trajectory '{path}' must be a JSON object with 'steps' (got list)"),
        ('{"steps": 3}', "Trajectory '{path}': 'steps' must be a list (got int)"),
    ],
)
def test_unusable_files_raise_a_clear_error(
    tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "t.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ValueError, match="^" + re.escape(message.format(path=path))):
        render_trajectory(path)


def test_relative_paths_stay_in_the_workspace_absolute_ones_are_harbors(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "logs").mkdir(parents=True)
    assert trajectory_path(ws, "logs/t.json") == (ws / "logs" / "t.json").resolve()
    assert trajectory_path(ws, "/logs/agent/trajectory.json") == Path("/logs/agent/trajectory.json")
    with pytest.raises(ValueError, match="resolves outside the workspace"):
        trajectory_path(ws, "../t.json")
    (ws / "link").symlink_to(tmp_path)
    with pytest.raises(ValueError, match="resolves outside the workspace"):
        trajectory_path(ws, "link/t.json")


def test_hostile_trajectory_files_are_refused_with_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"steps": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ValueError, match="nested deeper than 100 levels"):
        render_trajectory(deep)
    monkeypatch.setattr("rewardkit.judges._trajectory.MAX_TRAJECTORY_BYTES", 10)
    big = write(tmp_path / "big.json", FULL)
    with pytest.raises(ValueError, match="over the 10-byte read cap"):
        format_trajectory(big)
    (tmp_path / "secret.json").write_text(json.dumps(FULL))
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "t.json").symlink_to(tmp_path / "secret.json")
    with pytest.raises(ValueError, match=r"Could not read trajectory .*outside"):
        render_trajectory(tmp_path / "run" / "t.json")
