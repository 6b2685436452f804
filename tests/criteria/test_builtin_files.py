"""Built-in file criteria, and the built-in table as a whole."""

from __future__ import annotations

import ast
import difflib
import inspect
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from rewardkit.criteria import CriterionFactory, builtins, files

ESCAPES = ["absolute-symlink", "dotdot", "symlink"]

ALL_BUILTINS = {
    "file_exists": ["path"],
    "file_not_exists": ["path"],
    "file_contains": ["path", "text"],
    "file_contains_regex": ["path", "pattern"],
    "file_matches": ["path", "expected"],
    "files_equal": ["path1", "path2"],
    "diff_ratio": ["path", "expected"],
    "command_succeeds": ["cmd", "cwd=None", "timeout=30"],
    "command_output_contains": ["cmd", "text", "cwd=None", "timeout=30"],
    "command_output_matches": ["cmd", "expected", "cwd=None", "timeout=30"],
    "command_output_matches_regex": ["cmd", "pattern", "cwd=None", "timeout=30"],
    "json_key_equals": ["path", "key", "expected"],
    "json_path_equals": ["path", "json_path", "expected"],
    "csv_cell_equals": ["path", "row", "col", "expected"],
    "xlsx_cell_equals": ["path", "cell", "expected", "sheet=None"],
    "sqlite_query_equals": ["db_path", "query", "expected"],
    "http_status_equals": ["url", "status=200", "timeout=10"],
    "http_response_contains": ["url", "text", "timeout=10"],
    "image_similarity": ["path1", "path2"],
    "image_size_equals": ["path", "width", "height"],
    "trajectory_tool_used": ["tool_name", "min_count=1", "path='/logs/agent/trajectory.json'"],
    "trajectory_tool_not_used": ["tool_name", "path='/logs/agent/trajectory.json'"],
    "trajectory_turn_count": ["max_turns", "path='/logs/agent/trajectory.json'"],
}


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the workspace whose content would make every check pass."""
    target = tmp_path / "outside" / "secret.txt"
    target.parent.mkdir()
    target.write_text("hello world\n")
    return target


def escape(kind: str, ws: Path, target: Path) -> str:
    """A path naming `target` from inside `ws`: through `..`, or via a symlink (given as a
    relative path, or as an absolute one inside the workspace)."""
    if kind == "dotdot":
        return os.path.relpath(target, ws)
    link = ws / "link"
    link.symlink_to(target)
    return str(link) if kind == "absolute-symlink" else "link"


def test_builtins_are_exactly_the_23() -> None:
    table = builtins()
    assert sorted(table) == sorted(ALL_BUILTINS)
    for name, factory in table.items():
        assert isinstance(factory, CriterionFactory)
        assert factory.name == name
        assert factory.shared
        assert next(iter(inspect.signature(factory.fn).parameters)) == "workspace"
        params = [
            p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}"
            for p in factory.signature.parameters.values()
        ]
        assert params == ALL_BUILTINS[name], name


def test_builtin_modules_import_nothing_heavy() -> None:
    src = Path(files.__file__).resolve().parents[2]
    code = (
        "import sys; import rewardkit.criteria._registry; before = set(sys.modules); "
        "from rewardkit.criteria import builtins; builtins(); "
        "print(sorted(set(sys.modules) - before))"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")]),
    }
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    loaded = set(ast.literal_eval(out.stdout))
    heavy = {"PIL", "openpyxl", "urllib.request", "sqlite3", "difflib", "csv", "json", "zipfile"}
    assert not loaded & heavy


def test_file_exists(ws: Path) -> None:
    check = files.file_exists.make_check(("out.txt",))
    assert check.name == "file_exists:out.txt"
    assert check.description == "Check that out.txt exists in the workspace"
    assert check.evaluate(ws) is False
    (ws / "out.txt").write_text("x")
    assert check.evaluate(ws) is True
    (ws / "dir").mkdir()
    assert files.file_exists.make_check(("dir",)).evaluate(ws) is True


def test_file_not_exists(ws: Path) -> None:
    check = files.file_not_exists.make_check(("out.txt",))
    assert check.description == "Check that out.txt does NOT exist in the workspace"
    assert check.evaluate(ws) is True
    (ws / "out.txt").write_text("x")
    assert check.evaluate(ws) is False


def test_symlink_inside_the_workspace_is_followed(ws: Path) -> None:
    (ws / "real.txt").write_text("hello")
    (ws / "alias.txt").symlink_to("real.txt")
    assert files.file_contains.make_check(("alias.txt", "hell")).evaluate(ws) is True


@pytest.mark.parametrize("kind", ESCAPES)
@pytest.mark.parametrize("crit", ["file_exists", "file_not_exists"])
def test_existence_outside_the_workspace_is_false(
    ws: Path, secret: Path, kind: str, crit: str
) -> None:
    check = getattr(files, crit).make_check((escape(kind, ws, secret),))
    with pytest.warns(UserWarning, match=rf"^{crit}: .*assigning reward 0"):
        assert check.evaluate(ws) is False


def test_file_not_exists_is_false_for_a_missing_path_outside(ws: Path) -> None:
    with pytest.warns(UserWarning, match="file_not_exists"):
        assert files.file_not_exists.make_check(("../nothing",)).evaluate(ws) is False


READERS = [
    ("file_contains", ("hello",), True, ("bye",)),
    ("file_contains_regex", (r"^hel+o\s",), True, (r"^world",)),
    ("file_matches", ("  hello world ",), True, ("hello",)),
    ("diff_ratio", ("hello world",), 1.0, ("",)),
]


@pytest.mark.parametrize(("crit", "good", "pass_value", "bad"), READERS)
def test_readers_pass_and_fail(
    ws: Path, crit: str, good: tuple[str], pass_value: object, bad: tuple[str]
) -> None:
    (ws / "out.txt").write_text("hello world\n")
    factory = getattr(files, crit)
    assert factory.make_check(("out.txt", *good)).evaluate(ws) == pass_value
    assert not factory.make_check(("out.txt", *bad)).evaluate(ws)


@pytest.mark.parametrize(("crit", "good", "pass_value", "bad"), READERS)
def test_readers_missing_file(
    ws: Path, crit: str, good: tuple[str], pass_value: object, bad: tuple[str]
) -> None:
    check = getattr(files, crit).make_check(("out.txt", *good))
    msg = rf"^{crit}: 'out.txt' not found in workspace, assigning reward 0$"
    with pytest.warns(UserWarning, match=msg):
        result = check.evaluate(ws)
    assert not result
    assert type(result) is type(pass_value)


@pytest.mark.parametrize("kind", ESCAPES)
@pytest.mark.parametrize(("crit", "good", "pass_value", "bad"), READERS)
def test_readers_never_read_outside(
    ws: Path,
    secret: Path,
    kind: str,
    crit: str,
    good: tuple[str],
    pass_value: object,
    bad: tuple[str],
) -> None:
    check = getattr(files, crit).make_check((escape(kind, ws, secret), *good))
    with pytest.warns(UserWarning, match=rf"^{crit}: .*assigning reward 0"):
        assert not check.evaluate(ws)


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: p.mkdir(), "not a regular file"),
        (lambda p: os.mkfifo(p), "not a regular file"),  # reading it would block forever
        (lambda p: p.write_bytes(b"\xff\xfe\x00binary"), "UnicodeDecodeError"),
    ],
    ids=["directory", "fifo", "binary"],
)
def test_unreadable_file_scores_zero(ws: Path, make: Callable[[Path], object], reason: str) -> None:
    make(ws / "out.txt")
    started = time.monotonic()
    with pytest.warns(UserWarning, match=rf"'out.txt' could not be read \({reason}\)"):
        assert files.file_contains.make_check(("out.txt", "x")).evaluate(ws) is False
    assert time.monotonic() - started < 2


def test_descriptions(ws: Path) -> None:
    cases = {
        ("file_contains", ("a.txt", "hi")): "Check that a.txt contains the text 'hi'",
        ("file_contains_regex", ("a.txt", "h.")): (
            "Check that a.txt contains text matching regex 'h.'"
        ),
        ("file_matches", ("a.txt", "hi")): (
            "Check that the content of a.txt exactly matches the expected string"
        ),
        ("files_equal", ("a.txt", "b.txt")): "Check that a.txt and b.txt have equal content",
        ("diff_ratio", ("a.txt", "hi")): "Similarity ratio for a.txt",
    }
    for (crit, args), text in cases.items():
        check = getattr(files, crit).make_check(args)
        assert check.description == text
        assert check.name == f"{crit}:a.txt"


def test_file_contains_regex_uses_search(ws: Path) -> None:
    (ws / "log.txt").write_text("line one\nERROR 42: boom\n")
    assert files.file_contains_regex.make_check(("log.txt", r"ERROR \d+")).evaluate(ws) is True
    assert files.file_contains_regex.make_check(("log.txt", r"\AERROR")).evaluate(ws) is False


def test_files_equal(ws: Path, secret: Path) -> None:
    (ws / "a.txt").write_text("same\n")
    (ws / "b.txt").write_text("  same")
    (ws / "c.txt").write_text("other")
    assert files.files_equal.make_check(("a.txt", "b.txt")).evaluate(ws) is True
    assert files.files_equal.make_check(("a.txt", "c.txt")).evaluate(ws) is False
    for args, missing in [(("a.txt", "zz.txt"), "zz.txt"), (("zz.txt", "a.txt"), "zz.txt")]:
        with pytest.warns(UserWarning, match=rf"^files_equal: '{missing}' not found"):
            assert files.files_equal.make_check(args).evaluate(ws) is False
    (ws / "hello.txt").write_text("hello world")
    (ws / "link").symlink_to(secret)
    with pytest.warns(UserWarning, match="^files_equal: .*outside the workspace"):
        assert files.files_equal.make_check(("hello.txt", "link")).evaluate(ws) is False


def test_diff_ratio_matches_difflib(ws: Path) -> None:
    (ws / "out.txt").write_text("  the quick brown fox\n")
    expected = "the quick brown cat"
    ratio = files.diff_ratio.make_check(("out.txt", expected)).evaluate(ws)
    assert isinstance(ratio, float)
    assert ratio == difflib.SequenceMatcher(None, "the quick brown fox", expected).ratio()
    assert 0.0 < ratio < 1.0


def test_file_matches_strips_both_sides(ws: Path) -> None:
    (ws / "out.txt").write_text("\n 42 \n\n")
    assert files.file_matches.make_check(("out.txt", "42\n")).evaluate(ws) is True
    assert files.file_matches.make_check(("out.txt", "4 2")).evaluate(ws) is False


def test_authors_absolute_paths_are_honoured(ws: Path, tmp_path: Path) -> None:
    """`/app/out.txt` graded at `/app` is the workspace's file; `/logs/...` is read as written."""
    (ws / "out.txt").write_text("hello world\n")
    logs = tmp_path / "logs" / "verifier"
    logs.mkdir(parents=True)
    (logs / "reply.txt").write_text("status: done\n")
    assert files.file_exists.make_check((str(ws / "out.txt"),)).evaluate(ws) is True
    assert files.file_contains.make_check((str(ws / "out.txt"), "hello")).evaluate(ws) is True
    reply = str(logs / "reply.txt")
    assert files.file_contains_regex.make_check((reply, r"status: \w+")).evaluate(ws) is True
    (ws / "link").symlink_to(logs)  # inside the workspace, a symlink still never leads out
    with pytest.warns(UserWarning, match="outside the workspace"):
        assert (
            files.file_contains.make_check((str(ws / "link" / "reply.txt"), "s")).evaluate(ws)
            is False
        )


def test_reads_are_capped_and_name_the_cap(ws: Path) -> None:
    from rewardkit.core import _untrusted

    with open(ws / "big.txt", "wb") as handle:  # sparse: 1 GiB on paper, nothing on disk
        handle.truncate(1 << 30)
    with pytest.raises(_untrusted.CapExceeded, match=r"over the 64 MiB read cap"):
        files.file_contains.make_check(("big.txt", "x")).evaluate(ws)
