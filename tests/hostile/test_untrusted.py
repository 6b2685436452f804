"""`rewardkit.core._untrusted`: confinement that survives a racing symlink, capped reads and parses."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from rewardkit.core import _untrusted
from rewardkit.core._untrusted import (
    CapExceeded,
    NotRegularFile,
    OutsideWorkspace,
    confine,
    loads_json,
    loads_yaml,
    read_text,
    walk_files,
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("SECRET")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "out.txt").write_text("fine")
    return workspace


def test_a_symlink_swapped_after_the_check_is_caught(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent flips `out.txt` to a symlink between the confinement check and the open."""
    real_open = os.open

    def racing_open(path: str | os.PathLike[str], flags: int, *args: object) -> int:
        if Path(path) == ws / "out.txt":
            os.unlink(path)
            os.symlink(ws.parent / "outside" / "secret.txt", path)
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(_untrusted.os, "open", racing_open)
    with pytest.raises(OutsideWorkspace, match="swapped for a path outside the workspace"):
        read_text(ws, "out.txt")


def test_a_directory_swapped_for_a_symlink_is_caught(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / "sub").mkdir()
    (ws / "sub" / "secret.txt").write_text("fine")
    real_open = os.open

    def racing_open(path: str | os.PathLike[str], flags: int, *args: object) -> int:
        if Path(path) == ws / "sub" / "secret.txt":
            os.rename(ws / "sub", ws / "old")
            os.symlink(ws.parent / "outside", ws / "sub")
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(_untrusted.os, "open", racing_open)
    with pytest.raises(OutsideWorkspace):
        read_text(ws, "sub/secret.txt")


@pytest.mark.parametrize(
    ("path", "author", "expected"),
    [
        ("out.txt", True, "ws/out.txt"),
        ("{ws}/out.txt", True, "ws/out.txt"),  # Harbor authors write /app/out.txt
        ("{ws}/out.txt", False, "ws/out.txt"),
        ("{root}/outside/secret.txt", True, "outside/secret.txt"),  # e.g. /logs/verifier/...
    ],
)
def test_author_and_agent_paths(ws: Path, path: str, author: bool, expected: str) -> None:
    given = path.format(ws=ws, root=ws.parent)
    assert confine(ws, given, author=author) == (ws.parent / expected).resolve()


@pytest.mark.parametrize("path", ["../outside/secret.txt", "{root}/outside/secret.txt", "link"])
def test_agent_paths_never_leave(ws: Path, path: str) -> None:
    (ws / "link").symlink_to(ws.parent / "outside" / "secret.txt")
    with pytest.raises(OutsideWorkspace):
        confine(ws, path.format(root=ws.parent), author=False)


def test_an_authors_path_inside_the_workspace_still_cannot_leave_by_symlink(ws: Path) -> None:
    (ws / "link").symlink_to(ws.parent / "outside")
    with pytest.raises(OutsideWorkspace):
        confine(ws, f"{ws}/link/secret.txt", author=True)


@pytest.mark.parametrize("how", ["link", "{root}/ws2/secret.txt", "../ws2/secret.txt"])
def test_a_sibling_whose_name_extends_the_workspaces_is_outside(ws: Path, how: str) -> None:
    """`ws2` starts with the characters of `ws`: containment compares whole path components."""
    (ws.parent / "ws2").mkdir()
    (ws.parent / "ws2" / "secret.txt").write_text("SECRET")
    (ws / "link").symlink_to(ws.parent / "ws2" / "secret.txt")
    with pytest.raises(OutsideWorkspace):
        read_text(ws, how.format(root=ws.parent), author=False)


def test_fifo_is_refused_without_blocking(ws: Path) -> None:
    os.mkfifo(ws / "pipe")
    start = time.monotonic()
    with pytest.raises(NotRegularFile):
        read_text(ws, "pipe")
    assert time.monotonic() - start < 1


def test_sparse_file_is_refused_at_the_cap(ws: Path) -> None:
    with open(ws / "big", "wb") as handle:
        handle.truncate(1 << 30)
    with pytest.raises(CapExceeded, match=r"1,073,741,824 bytes, over the 64 MiB read cap"):
        read_text(ws, "big")
    with pytest.raises(CapExceeded, match="4 bytes, over the 1-byte read cap"):
        read_text(ws, "out.txt", cap=1)


def test_yaml_alias_bomb_is_refused_quickly() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(8):
        prev, name = chr(97 + i), chr(98 + i)
        lines.append(f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]")
    bomb = "\n".join(lines)
    assert len(bomb) < 500
    start = time.monotonic()
    with pytest.raises(CapExceeded, match=r"input\.yaml holds more than 1,000,000 values"):
        loads_yaml(bomb, "input.yaml")
    assert time.monotonic() - start < 5  # ≈0.3 s; expanded, the bomb is billions of values


def test_self_referencing_yaml_is_refused() -> None:
    with pytest.raises(CapExceeded, match="nested deeper"):
        loads_yaml("a: &a [*a]", "x.yaml")


@pytest.mark.parametrize("loads", [loads_json, loads_yaml])
def test_deep_nesting_never_raises_recursion_error(loads: object) -> None:
    with pytest.raises(CapExceeded, match="nested deeper than 100 levels"):
        loads("[" * 100_000 + "]" * 100_000, "deep")  # type: ignore[operator]
    assert loads("[" * 50 + "]" * 50, "ok") is not None  # type: ignore[operator]


def test_walk_is_iterative_and_capped(ws: Path) -> None:
    import subprocess

    here = os.getcwd()
    os.chdir(ws)
    try:
        for _ in range(300):
            os.mkdir("d")
            os.chdir("d")
        Path("deep.txt").write_text("x")
    finally:
        os.chdir(here)
    try:
        _assert_walk_caps(ws)
    finally:  # pytest's own clean-up of old runs recurses
        subprocess.run(["rm", "-rf", str(ws / "d")], check=True)


def _assert_walk_caps(ws: Path) -> None:
    for i in range(50):
        (ws / f"f{i:02}.txt").write_text("x")
    (ws / "loop").symlink_to(ws)  # a symlinked directory is never entered
    found, cut = walk_files(ws, max_entries=40)
    assert len(found) <= 40
    assert cut == "the walk stopped at 40 entries (the cap)"
    found, cut = walk_files(ws)
    assert cut == "directories deeper than 32 levels were skipped (the cap)"
    assert Path("out.txt") in [Path(p) for p in found]
    assert all("loop" not in p.parts for p in found)
