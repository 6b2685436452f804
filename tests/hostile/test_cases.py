"""Hostile eval.yaml cases and Harbor bridge workspaces, through the real CLI.

Each attack is written by a builder into one case directory (or the bridge's workspace) next
to a benign case. Every run must end within `MAX_WALL_S` and `MAX_RSS_MB`, write its outputs,
error the hostile case's judges with a message naming the file and the cap, leave the benign
case's scores alone, and never show a secret planted outside the case (and linked to).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hostile._measure import Measured, assert_no_leak, measure, rewardkit_cmd

SECRET = "s3cret-planted-outside-the-case"
LIMIT_S = 90
"""The run is killed here; `measure` then reports no exit code."""
MAX_WALL_S = 30
MAX_RSS_MB = 400
DEPTH = 100_000
DIRS = 2_000

EVAL = """\
judges:
  - name: echo
    check: "return True, repr(outputs)[:100000]"
  - name: searched
    builtin: tool_called
    arguments: {name: search}
  - name: graded
    prompt: "Grade {{ inputs }} against {{ annotations }}."
    model: openai/never-called
    if: "'a' in outputs['inputs'] or 's' in annotations"
"""
"""`echo` shows the whole record (a leak would show); `graded` renders the case into an LLM
prompt, for the alias bombs only (no model is ever reached: the case is refused first)."""

Builder = Callable[[Path, Path], None]


# --- attack builders: (case directory, directory holding the secret) ------------------------


def deep_json(name: str) -> Builder:
    def build(case: Path, outside: Path) -> None:
        (case / name).write_text("[" * DEPTH + "]" * DEPTH)

    return build


def deep_yaml(name: str, depth: int) -> Builder:
    def build(case: Path, outside: Path) -> None:
        (case / name).write_text("a: " + "[" * depth + "]" * depth + "\n")

    return build


def deep_dirs(case: Path, outside: Path) -> None:
    fd = os.open(case, os.O_RDONLY)
    for _ in range(DIRS):  # by descriptor: the full path is longer than PATH_MAX
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)


def alias_bomb(case: Path, outside: Path) -> None:
    """Nine levels of nine aliases: 477 bytes, 387 million strings once expanded."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, cur in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{cur}: &{cur} [{','.join([f'*{prev}'] * 9)}]")
    (case / "input.yaml").write_text("\n".join(lines) + "\n")


def string_bomb(case: Path, outside: Path) -> None:
    """90 kB, 20,000 values (under that cap), but 200 million characters once expanded."""
    text = "x" * 10_000
    (case / "annotations.yaml").write_text(f"s: &s {text}\nl: [{', '.join(['*s'] * 20_000)}]\n")


def linked_out(name: str) -> Builder:
    def build(case: Path, outside: Path) -> None:
        (case / name).symlink_to(outside / "secret.yaml")

    return build


def linked_to_zero(case: Path, outside: Path) -> None:
    (case / "annotations.yaml").symlink_to("/dev/zero")


def many_annotation_files(case: Path, outside: Path) -> None:
    """2,000 annotations naming one 1 MiB file: 2 GiB of annotation contents."""
    (case / "ref.txt").write_text("r" * (1 << 20))
    (case / "annotations.yaml").write_text("".join(f"k{i}: ref.txt\n" for i in range(2000)))


def huge_log(case: Path, outside: Path) -> None:
    with open(case / "stdout.log", "wb") as handle:
        handle.truncate(2 << 30)  # sparse: 2 GiB that cost no disk


ATTACKS: dict[str, tuple[Builder, tuple[str, ...]]] = {
    "deep conversation.json": (deep_json("conversation.json"), ("conversation.json", "deeper")),
    "deep tool_calls.json": (deep_json("tool_calls.json"), ("tool_calls.json", "deeper")),
    "deep input.yaml": (
        deep_yaml("input.yaml", DEPTH),
        ("input.yaml", "bytes, over the", "read cap"),
    ),
    "deep annotations.yaml": (
        deep_yaml("annotations.yaml", 50_000),
        ("annotations.yaml", "deeper than 100 levels"),
    ),
    "2,000 nested directories": (deep_dirs, ("deeper than 32 levels", "the cap")),
    "YAML alias bomb": (alias_bomb, ("input.yaml", "1,000,000 values")),
    "YAML string alias bomb": (
        string_bomb,
        ("annotations.yaml", "characters once expanded (the cap"),
    ),
    "input.yaml linked out": (linked_out("input.yaml"), ("input.yaml", "leads outside")),
    "annotations.yaml linked out": (
        linked_out("annotations.yaml"),
        ("annotations.yaml", "leads outside"),
    ),
    "annotations.yaml linked to /dev/zero": (linked_to_zero, ("annotations.yaml", "outside")),
    "stdout.log linked out": (linked_out("stdout.log"), ("stdout.log", "leads outside")),
    "2 GiB stdout.log": (huge_log, ("stdout.log", "read cap")),
    "2,000 annotations naming a 1 MiB file": (
        many_annotation_files,
        ("ref.txt", "the files annotations name are over 16 MiB in all (the cap)"),
    ),
}


# --- fixtures and helpers ----------------------------------------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory outside every case and workspace, holding the secret."""
    directory = tmp_path / "outside"
    directory.mkdir()
    (directory / "secret.yaml").write_text(f"expected: {SECRET}\n")
    (directory / "secret.txt").write_text(SECRET)
    return directory


@pytest.fixture(autouse=True)
def _flatten(tmp_path: Path) -> Iterator[None]:
    """Remove nested directories bottom-up by walking the working directory down and back
    (their paths are longer than PATH_MAX, and shutil.rmtree would recurse)."""
    yield
    here = os.getcwd()
    try:
        for top in (tmp_path / "cases" / "hostile", tmp_path / "app"):
            if not top.is_dir():
                continue  # that test made no such tree
            os.chdir(top)
            depth = 0
            while os.path.isdir("d"):
                os.chdir("d")
                depth += 1
            for _ in range(depth):
                os.chdir("..")
                os.rmdir("d")
    finally:
        os.chdir(here)


def cases_dir(tmp_path: Path, outside: Path, build: Builder) -> Path:
    (tmp_path / "eval.yaml").write_text(EVAL)
    cases = tmp_path / "cases"
    benign = cases / "benign"
    benign.mkdir(parents=True)
    (benign / "input.yaml").write_text("question: six times seven\n")
    (benign / "answer.txt").write_text("42")
    (benign / "tool_calls.json").write_text('[{"name": "search"}]')
    hostile = cases / "hostile"
    hostile.mkdir()
    (hostile / "answer.txt").write_text("42")
    build(hostile, outside)
    return cases


def run_eval(tmp_path: Path, cases: Path) -> tuple[Measured, dict[str, Any]]:
    out = tmp_path / "out"
    cmd = rewardkit_cmd("eval", tmp_path / "eval.yaml", "--cases", cases, "--out", out)
    done = measure([*cmd, "--no-progress"], limit_s=LIMIT_S)
    assert done.returncode is not None, f"killed at {LIMIT_S} s"
    assert done.wall_s < MAX_WALL_S, f"took {done.wall_s:.1f} s"
    assert done.peak_rss_mb < MAX_RSS_MB, f"peak RSS {done.peak_rss_mb:.0f} MB"
    assert (out / "summary.json").is_file(), done.stderr[-2000:]
    outputs = [p for p in out.rglob("*") if p.is_file()]
    assert_no_leak(SECRET, *outputs, texts=(done.stdout, done.stderr))
    return done, json.loads((out / "summary.json").read_text())


# --- rewardkit eval ----------------------------------------------------------------------


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_hostile_case_errors_its_judges_and_spares_the_others(
    tmp_path: Path, outside: Path, attack: str
) -> None:
    build, expected = ATTACKS[attack]
    done, summary = run_eval(tmp_path, cases_dir(tmp_path, outside, build))
    assert done.returncode == 3, done.stderr[-2000:]  # some judge errored
    benign = summary["per_case"]["benign"]["judges"]
    assert benign["echo"]["status"] == benign["searched"]["status"] == "scored"
    assert benign["searched"]["value"] is True
    for name, entry in summary["per_case"]["hostile"]["judges"].items():
        assert entry["status"] == "error", (name, entry)
        for fragment in expected:
            assert fragment in entry["error"], (fragment, entry["error"])


def test_an_oversize_output_file_is_a_skipped_stub(tmp_path: Path, outside: Path) -> None:
    def build(case: Path, outside: Path) -> None:
        with open(case / "big.bin", "wb") as handle:
            handle.truncate(2 << 30)
        (case / "tool_calls.json").write_text('[{"name": "search"}]')

    _, summary = run_eval(tmp_path, cases_dir(tmp_path, outside, build))
    hostile = summary["per_case"]["hostile"]["judges"]
    assert hostile["searched"]["value"] is True
    assert "'_skipped'" in hostile["echo"]["rationale"]
    assert "big.bin' is 2,147,483,648 bytes, over the" in hostile["echo"]["rationale"]


def test_links_and_paths_out_of_a_case_are_never_read(tmp_path: Path, outside: Path) -> None:
    def build(case: Path, outside: Path) -> None:
        (case / "leak.txt").symlink_to(outside / "secret.txt")
        (case / "sub").mkdir()
        (case / "sub" / "up").symlink_to(outside)
        (case / "annotations.yaml").write_text(
            f"up: ../../outside/secret.txt\nabsolute: {outside / 'secret.txt'}\n"
        )

    _, summary = run_eval(tmp_path, cases_dir(tmp_path, outside, build))
    echo = summary["per_case"]["hostile"]["judges"]["echo"]
    assert echo["status"] == "scored"
    assert "leak.txt" not in echo["rationale"]
    assert "annotation_up_content" not in echo["rationale"]


# --- the Harbor bridge -------------------------------------------------------------------

BRIDGE = """\
judges:
  - name: correct
    builtin: answer_matches
    arguments: {path: answer.txt}
  - name: cheap
    builtin: turn_budget
    arguments: {max_turns: 10}
  - name: no_shell
    builtin: tool_not_called
    arguments: {name: bash}
  - name: echo
    check: "return True, repr(outputs)[:100000]"
reward:
  formula: weighted
  weights: {correct: 1, cheap: 1, no_shell: 1}
"""


def run_bridge(tmp_path: Path, workspace: Path) -> tuple[Measured, dict[str, Any], Path]:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "eval.yaml").write_text(BRIDGE)
    (tests / "annotations.yaml").write_text("expected: '42'\n")
    out = tmp_path / "logs" / "reward.json"
    done = measure(rewardkit_cmd(tests, "--workspace", workspace, "--output", out), limit_s=LIMIT_S)
    assert done.returncode is not None, f"killed at {LIMIT_S} s"
    assert done.wall_s < MAX_WALL_S, f"took {done.wall_s:.1f} s"
    assert done.peak_rss_mb < MAX_RSS_MB, f"peak RSS {done.peak_rss_mb:.0f} MB"
    assert out.is_file(), done.stderr[-2000:]
    outputs = [p for p in out.parent.rglob("*") if p.is_file()]
    assert_no_leak(SECRET, *outputs, texts=(done.stdout, done.stderr))
    details = json.loads(out.with_name("reward-details.json").read_text())["reward"]
    return done, {c["name"]: c for c in details["criteria"]}, out


def test_ground_truth_and_run_metadata_written_by_the_agent_are_ignored(tmp_path: Path) -> None:
    ws = tmp_path / "app"
    ws.mkdir()
    (ws / "answer.txt").write_text("41")  # wrong
    (ws / "annotations.yaml").write_text("expected: '41'\n")  # the answer it wants
    (ws / "input.yaml").write_text("question: what is 41\n")
    (ws / "run_result.json").write_text('{"cost_usd": 0.0, "num_turns": 1, "exit_code": 0}')
    (ws / "tool_calls.json").write_text("[]")
    _, criteria, out = run_bridge(tmp_path, ws)
    assert json.loads(out.read_text()) == {"reward": 0.0}
    assert criteria["correct"]["status"] == "scored"
    assert criteria["correct"]["value"] == 0.0
    for name in ("cheap", "no_shell"):
        assert criteria[name]["status"] == "error"
        assert "never read from the workspace" in criteria[name]["error"]
    assert "annotations.yaml" in criteria["echo"]["reasoning"]  # just an output file


def test_the_right_answer_still_scores_through_the_bridge(tmp_path: Path) -> None:
    ws = tmp_path / "app"
    ws.mkdir()
    (ws / "answer.txt").write_text("42\n")
    _, criteria, out = run_bridge(tmp_path, ws)
    assert criteria["correct"]["value"] == 1.0
    assert json.loads(out.read_text()) == {"reward": 1.0}  # errored metadata judges left out


def test_a_hostile_workspace_still_gets_a_reward_file(tmp_path: Path, outside: Path) -> None:
    ws = tmp_path / "app"
    ws.mkdir()
    (ws / "answer.txt").write_text("42")
    (ws / "leak.txt").symlink_to(outside / "secret.txt")
    deep_json("conversation.json")(ws, outside)
    alias_bomb(ws, outside)  # input.yaml in the workspace: an output, never parsed
    deep_dirs(ws, outside)
    _, criteria, out = run_bridge(tmp_path, ws)
    assert json.loads(out.read_text()) == {"reward": 0.0}
    assert out.with_name("reward.txt").read_text() == "0.0\n"
    for entry in criteria.values():
        assert entry["status"] == "error"
        assert "deeper than 32 levels" in entry["error"]
