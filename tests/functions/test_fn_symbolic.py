"""verify_latex: math-verify in worker processes, under a deadline that holds on any thread."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rewardkit.functions.builtin.math import _symbolic
from rewardkit.functions.builtin.math._symbolic import verify_latex

pytest.importorskip("math_verify")

TOWER = "9^{9^{9^9}}"


@pytest.fixture
def fresh() -> Iterator[None]:
    """Workers started for this test alone (and ended after it), and no cached verdict."""
    _symbolic._close()
    _symbolic._cache.clear()
    yield
    _symbolic._close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return state != "Z"


@pytest.mark.parametrize(
    ("gold", "answer", "expected"),
    [
        ("\\frac{1}{2}", "0.5", True),
        ("\\frac{1}{2}", "\\frac{2}{4}", True),
        ("\\frac{1}{2}", "\\frac{1}{3}", False),
        ("\\{1, 2\\}", "\\{2, 1\\}", True),
        ("\\{1, 2\\}", "\\{1, 3\\}", False),
        ("(0, 9]", "(0,9]", True),
        ("(0, 9]", "[0, 9]", False),
        ("x^2+1", "1+x^2", True),
        ("(x+1)^2", "x^2+2x+1", True),
        ("x^2+1", "x^2", False),
        ("2\\sqrt{2}", "\\sqrt{8}", True),
    ],
)
def test_verdicts(gold: str, answer: str, expected: bool) -> None:
    assert verify_latex(gold, answer) is expected


@pytest.mark.parametrize(
    ("gold", "answer"),
    [("1", "\\frac{"), ("\\frac{", "1"), ("1", ""), ("  ", "1"), ("1", "1" * 2_001)],
)
def test_undecided(gold: str, answer: str) -> None:
    assert verify_latex(gold, answer) is None


def test_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        verify_latex("1", "1", timeout=0)


def _timed_tower(results: dict[str, object]) -> None:
    start = time.monotonic()
    results["verdict"] = verify_latex("1", TOWER, timeout=1)
    results["seconds"] = time.monotonic() - start


@pytest.mark.parametrize("where", ["main", "thread"])
def test_power_tower_ends_at_the_deadline(where: str) -> None:
    warm_up = {"main": "\\frac{2}{2}", "thread": "\\frac{3}{3}"}[where]
    assert verify_latex("1", warm_up) is True  # a worker is ready: its start is not timed
    results: dict[str, object] = {}
    if where == "main":
        _timed_tower(results)
    else:
        thread = threading.Thread(target=_timed_tower, args=(results,))
        thread.start()
        thread.join(timeout=30)
    assert results["verdict"] is None
    assert isinstance(results["seconds"], float)
    assert results["seconds"] < 6  # ≈1.1 s; a generous bound for a loaded machine
    assert ("1", TOWER) not in _symbolic._cache  # a deadline is no verdict
    assert verify_latex("3", "\\frac{6}{2}") is True


def test_a_worker_past_the_deadline_is_killed(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that does not stop itself (as in C code, deaf to SIGALRM) is SIGKILLed."""
    monkeypatch.setattr(_symbolic, "_budget", lambda timeout: 60.0)
    assert verify_latex("1", "1") is True
    (pid,) = _symbolic._pool().pids()
    start = time.monotonic()
    assert verify_latex("1", TOWER, timeout=1) is None
    assert time.monotonic() - start < 6  # ≈1.1 s; a generous bound for a loaded machine
    assert not _alive(pid)
    assert verify_latex("4", "\\sqrt{16}") is True
    assert _symbolic._pool().pids() != [pid]


def test_concurrent_calls(fresh: None) -> None:
    cases = [(f"\\frac{{{k}}}{{2}}", str(k / 2 + k % 2), k % 2 == 0) for k in range(1, 41)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda case: verify_latex(case[0], case[1]), cases))
    assert got == [expected for _, _, expected in cases]
    assert 1 <= len(_symbolic._pool().pids()) <= _symbolic._POOL_SIZE


def test_cached_verdicts_skip_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    assert verify_latex("\\frac{3}{4}", "0.75") is True
    monkeypatch.setattr(_symbolic, "_pool", None)  # calling it would raise
    assert verify_latex("\\frac{3}{4}", "0.75") is True


def test_worker_environment_holds_no_secret(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "secret")
    assert verify_latex("\\frac{1}{5}", "0.2") is True
    (pid,) = _symbolic._pool().pids()
    environ = Path(f"/proc/{pid}/environ").read_bytes()
    assert b"secret" not in environ
    assert b"OPENAI_API_KEY" not in environ
    assert os.readlink(f"/proc/{pid}/cwd") == "/"


def test_missing_math_verify(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_symbolic, "_installed", lambda: False)
    with pytest.raises(ImportError, match=r"pip install 'rewardkit\[math\]'"):
        verify_latex("1", "1")


def test_missing_math_verify_in_the_worker(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The worker's interpreter may lack what this one has (`-I` drops `PYTHONPATH`)."""
    worker = tmp_path / "worker.py"
    worker.write_text('print(\'{"missing": "No module named math_verify"}\', flush=True)\n')
    monkeypatch.setattr(_symbolic, "_WORKER", worker)
    with pytest.raises(ImportError, match=r"verify_latex needs the math-verify package"):
        verify_latex("7", "7.0")


def test_no_heavy_import() -> None:
    code = (
        "import sys, rewardkit, rewardkit.functions.builtin.math._symbolic\n"
        "print(sorted({'sympy', 'math_verify'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_workers_end_at_exit() -> None:
    code = (
        "from rewardkit.functions.builtin.math import _symbolic\n"
        "assert _symbolic.verify_latex('1', '1.0')\n"
        "print(*_symbolic._pool().pids())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    pids = [int(pid) for pid in out.stdout.split()]
    assert pids
    assert not any(_alive(pid) for pid in pids)


def test_a_fork_starts_its_own_workers() -> None:
    assert verify_latex("5", "\\frac{10}{2}") is True
    parents = set(_symbolic._pool().pids())
    read, write = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # a threaded fork (3.12+)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        try:
            ok = verify_latex("6", "\\frac{12}{2}") is True
            ok = ok and not parents & set(_symbolic._pool().pids())
            _symbolic._close()
            os.write(write, b"ok" if ok else b"no")
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        said = pipe.read()
    os.waitpid(pid, 0)
    assert said == b"ok"
    assert all(_alive(p) for p in parents)
    assert verify_latex("7", "\\frac{14}{2}") is True
