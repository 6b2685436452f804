"""`Scorer` with a deadline: each sample in a forked worker that the deadline really ends."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

import rewardkit as rk
from rewardkit.batch import SampleResult, Scorer, _forked
from rewardkit.batch._backends import score_sample
from rewardkit.batch._forked import ForkedPool

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="worker processes are forked")


@rk.reward_function
def hostile(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    """Does what the completion says; scores 1 otherwise."""
    text = messages[-1]["content"]
    if text == "loop":
        while True:
            pass
    if text == "exit":
        os._exit(3)
    if text == "sys.exit":
        sys.exit(4)
    if text == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if text == "hog":
        return len(b"x" * (512 << 20)) / 0  # MemoryError under a smaller cap
    if text.startswith("spawn "):  # start a command, note its pid, hang
        child = subprocess.Popen(["sleep", "300"], start_new_session=True)
        Path(text.removeprefix("spawn ")).write_text(str(child.pid))
        while True:
            pass
    return 1.0


def _sample(text: str) -> dict[str, str]:
    return {"completion": text}


@pytest.fixture
def isolated() -> Iterator[Scorer]:
    with rk.load([hostile], deadline=0.5, max_concurrent=1, memory_mib=64) as scorer:
        yield scorer


def test_a_hanging_sample_is_killed_at_the_deadline_and_frees_its_slot(isolated: Scorer) -> None:
    start = time.perf_counter()
    results = isolated.score_batch(map(_sample, ["loop", "ok", "loop", "ok"]))
    took = time.perf_counter() - start
    assert [r.reward for r in results] == [None, 1.0, None, 1.0]
    assert results[0].error == "deadline of 0.5s exceeded"
    assert took < 8  # one slot: two deadlines (≈1.2 s with the restarts), not a hang


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("exit", "the worker process exited with code 3 while scoring this sample"),
        (
            "kill",
            "the worker process was killed by SIGKILL while scoring this sample (out of memory?)",
        ),
        ("sys.exit", "SystemExit: 4"),
    ],
)
def test_a_sample_that_ends_its_worker_is_invalid_alone(
    isolated: Scorer, text: str, error: str
) -> None:
    results = isolated.score_batch(map(_sample, ["ok", text, "ok"]))
    assert [r.reward for r in results] == [1.0, None, 1.0]
    assert error in (results[1].error or "")


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
def test_a_sample_over_the_memory_cap_is_invalid_alone(isolated: Scorer) -> None:
    results = isolated.score_batch(map(_sample, ["hog", "ok"]))
    assert [r.reward for r in results] == [None, 1.0]
    assert "MemoryError" in (results[0].error or "")
    assert "a worker may grow by 64 MiB: raise memory_mib= or --memory-mib" in (
        results[0].error or ""
    )


def test_results_match_the_thread_path() -> None:
    samples = [
        {"completion": "ok", "metadata": {"n": 1}},
        {"messages": [{"role": "user", "content": "hi"}]},
        {"prompt": "no answer"},
        {"completion": "ok", "typo": 1},
    ]
    threads = rk.load([hostile]).score_batch(samples)
    with rk.load([hostile], deadline=5, max_concurrent=2) as scorer:
        processes = scorer.score_batch(samples)
    assert [(r.reward, r.judges, r.error) for r in processes] == [
        (r.reward, r.judges, r.error) for r in threads
    ]


def test_a_sample_that_cannot_be_pickled_is_invalid(isolated: Scorer) -> None:
    result = isolated.score({"completion": "ok", "metadata": {"f": lambda: 1}})
    assert result.reward is None
    assert "the sample cannot be sent to a worker process" in (result.error or "")


def test_a_supervisor_killed_from_outside_is_replaced(isolated: Scorer) -> None:
    assert isolated._forked is not None
    (slot,) = isolated._forked._slots
    os.kill(slot.pid, signal.SIGKILL)
    results = isolated.score_batch(map(_sample, ["ok", "ok"]))
    assert [r.reward for r in results] == [1.0, 1.0]  # the chunk went to the new supervisor
    assert isolated._forked._slots[0].pid != slot.pid


def test_close_stops_every_process_and_the_scorer() -> None:
    scorer = rk.load([hostile], deadline=5, max_concurrent=2)
    assert scorer._forked is not None
    pids = [slot.pid for slot in scorer._forked._slots]
    scorer.close()
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # reaped: gone
    with pytest.raises(RuntimeError, match="after shutdown"):
        scorer.score(_sample("ok"))


def test_a_forked_child_cannot_use_or_stop_its_parents_workers(isolated: Scorer) -> None:
    pid = os.fork()
    if pid == 0:  # the child: scoring refuses, closing leaves the parent's workers alone
        code = 1
        try:
            isolated.score(_sample("ok"))
        except RuntimeError:
            isolated.close()
            code = 0
        finally:
            os._exit(code)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert isolated.score(_sample("ok")).reward == 1.0


def test_ascore_counts_the_wait_for_a_free_worker(isolated: Scorer) -> None:
    import asyncio

    async def three() -> list[SampleResult]:
        texts = ["loop", "loop", "ok"]  # one slot: "ok" waits two deadlines for it
        return await asyncio.gather(*(isolated.ascore(_sample(t)) for t in texts))

    results = asyncio.run(three())
    assert [r.error for r in results] == ["deadline of 0.5s exceeded"] * 3
    assert isolated.score(_sample("ok")).reward == 1.0


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_CHILD_SUBREAPER")
def test_what_a_killed_worker_started_is_ended_too(isolated: Scorer, tmp_path: Path) -> None:
    note = tmp_path / "pid"
    assert isolated.score(_sample(f"spawn {note}")).error == "deadline of 0.5s exceeded"
    command = int(note.read_text())
    assert isolated.score(_sample("ok")).reward == 1.0  # the next worker starts clean
    with pytest.raises(ProcessLookupError):
        os.kill(command, 0)  # killed and reaped


def _pool(size: int) -> ForkedPool:
    return ForkedPool(
        partial(score_sample, rk.load([hostile]).backend, on_error="fail"),
        size=size,
        deadline=30,
        memory_mib=64,
    )


def test_closing_the_pool_mid_sample_answers_it() -> None:
    pool = _pool(1)
    results: list[SampleResult] = []
    scoring = threading.Thread(target=lambda: results.append(pool.score(_sample("loop"))))
    scoring.start()
    time.sleep(0.3)
    pool.close()
    scoring.join(10)
    assert [r.error for r in results] == [
        "the scorer was closed while this sample was being scored"
    ]


def test_a_pool_that_cannot_start_leaves_no_process(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[int] = []
    real_fork = _forked.fork

    def fork_once(*args: Any, **kwargs: Any) -> tuple[int, Any]:
        if started:
            raise OSError("no more processes")
        pid, conn = real_fork(*args, **kwargs)
        started.append(pid)
        return pid, conn

    monkeypatch.setattr(_forked, "fork", fork_once)
    with pytest.raises(OSError, match="no more processes"):
        _pool(2)
    with pytest.raises(ProcessLookupError):
        os.kill(started[0], 0)


def test_a_lost_sample_costs_its_chunk_nothing_but_itself() -> None:
    # one chunk of eight: the hang and the exit each end the worker mid-chunk, and the
    # samples scored before them (their results died with it) are scored again
    texts = ["ok", "ok", "loop", "ok", "exit", "ok", "kill", "ok"]
    run = partial(score_sample, rk.load([hostile]).backend, on_error="fail")
    pool = ForkedPool(run, size=1, deadline=0.5, memory_mib=64)
    try:
        results = pool.score_chunk([_sample(t) for t in texts])
    finally:
        pool.close()
    assert [r.reward for r in results] == [1.0, 1.0, None, 1.0, None, 1.0, None, 1.0]
    assert results[2].error == "deadline of 0.5s exceeded"
    assert "exited with code 3" in (results[4].error or "")
    assert "killed by SIGKILL" in (results[6].error or "")


def test_a_batch_is_sent_in_chunks_and_comes_back_in_order() -> None:
    with rk.load([hostile], deadline=5, max_concurrent=2) as scorer:
        results = scorer.score_batch([_sample("ok")] * 300 + [_sample("exit")])
    assert [r.reward for r in results[:300]] == [1.0] * 300
    assert results[300].reward is None


DRIVER = os.getpid()


def _tag(key: str, result: SampleResult) -> tuple[str, float | None, bool]:
    """A `finish`: the key, the reward, and whether it ran in a worker."""
    return key, result.reward, os.getpid() != DRIVER


def test_finish_is_applied_in_the_worker_and_here_to_a_lost_sample() -> None:
    texts = ["ok", "loop", "ok", "exit", "ok"]
    run = partial(score_sample, rk.load([hostile]).backend, on_error="fail")
    pool = ForkedPool(run, size=1, deadline=0.5, memory_mib=64)
    try:
        back = pool.score_chunk([_sample(t) for t in texts], keys=list("abcde"), finish=_tag)
    finally:
        pool.close()
    # the lost samples' results are made outside a worker; their chunk-mates are rescored
    assert back == [
        ("a", 1.0, True),
        ("b", None, False),
        ("c", 1.0, True),
        ("d", None, False),
        ("e", 1.0, True),
    ]


def test_a_sigterm_the_instant_a_slot_is_forked_ends_it_whatever_the_drivers_handler() -> None:
    """`rewardkit serve` runs under uvicorn, whose SIGTERM handler only sets a flag: a fresh
    slot that inherited it would swallow an abandoning request's SIGTERM sent before it
    installed its own, and then score the abandoned sample forever."""
    flagged: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: flagged.append(signum))
    try:
        pid, conn = _forked.fork(lambda conn: time.sleep(30))
        os.kill(pid, signal.SIGTERM)  # before the child could have done anything
        start = time.monotonic()
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == -signal.SIGTERM
        assert time.monotonic() - start < 5
        conn.close()
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert flagged == []  # the driver was not signalled


def test_slots_forked_from_many_threads_at_once_each_end_their_own_pipe() -> None:
    """A slot's end of its pipe must live only in its child: inherited by another thread's
    fork, it would keep the driver from seeing the slot's exit."""
    forked: list[tuple[int, Any]] = []
    lock = threading.Lock()

    def fork_some() -> None:
        for _ in range(10):
            one = _forked.fork(lambda conn: time.sleep(30))
            with lock:
                forked.append(one)

    threads = [threading.Thread(target=fork_some) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        for pid, conn in forked:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            assert conn.poll(5)  # EOF: nothing else holds the child's end
            with pytest.raises(EOFError):
                conn.recv_bytes()
    finally:
        for pid, conn in forked:
            conn.close()
            with contextlib.suppress(ProcessLookupError, ChildProcessError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
