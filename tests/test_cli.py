"""The `rewardkit` command: flags, stdout, exit codes, multi-directory runs."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rewardkit.cli import main
from rewardkit.cli.verify import EXIT_CONFIG, EXIT_CRITERION_ERRORS, build_parser

OK = "import rewardkit as rk\nrk.file_exists('f.txt')\n"


def cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rewardkit", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_stdout_lines_and_outputs(task, tmp_path: Path) -> None:
    tests, ws = task(
        {"a.py": OK, "b.py": OK + "rk.file_exists('x')\nrk.file_exists('y')\n"}, {"f.txt": "x"}
    )
    out = tmp_path / "logs" / "reward.json"
    done = cli(tests, "--workspace", ws, "--output", out)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "reward: 0.6667",
        "",
        "below 1.0: 2 of 4 criteria",  # which checks failed, without opening the details
        "     0.00  file_exists:x",
        "     0.00  file_exists:y",
    ]
    assert cli(tests, "--workspace", ws, "--output", out, "-q").stdout == "reward: 0.6667\n"
    every = cli(tests, "--workspace", ws, "--output", out, "-v").stdout.splitlines()
    assert every[2:] == [
        "criteria",
        "     1.00  file_exists:f.txt",
        "     1.00  file_exists:f.txt #2",
        "     0.00  file_exists:x",
        "     0.00  file_exists:y",
    ]
    assert out.read_text() == '{\n  "reward": 0.6667\n}'
    assert json.loads(out.with_name("reward-details.json").read_text())["reward"]["kind"] == "group"


def test_multi_directory_run_prints_namespaced_keys_and_a_comparison(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "f.txt").write_text("x")
    for name, body in (("v1", OK), ("v2", OK + "rk.file_exists('nope')\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "checks.py").write_text(body)
    out = tmp_path / "reward.json"
    done = cli(tmp_path / "v1", tmp_path / "v2", "--workspace", ws, "--output", out)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:3] == ["v1/reward: 1.0", "v2/reward: 0.5", ""]
    assert "Comparison:" in done.stdout
    assert "reward  1.0000  0.5000  +0.5000" in done.stdout
    assert json.loads(out.read_text()) == {"v1/reward": 1.0, "v2/reward": 0.5}
    assert set(json.loads(out.with_name("reward-details.json").read_text())) == {
        "v1/reward",
        "v2/reward",
    }


def test_duplicate_basenames_are_a_config_error(tmp_path: Path) -> None:
    for parent in ("a", "b"):
        (tmp_path / parent / "v1").mkdir(parents=True)
        (tmp_path / parent / "v1" / "c.py").write_text(OK)
    done = cli(tmp_path / "a" / "v1", tmp_path / "b" / "v1", "--output", tmp_path / "r.json")
    assert done.returncode == EXIT_CONFIG
    assert "duplicate tests directory basenames: 'v1'" in done.stderr


def test_missing_tests_dir_exits_2_with_one_line(tmp_path: Path) -> None:
    done = cli(tmp_path / "nope", "--output", tmp_path / "r.json")
    assert done.returncode == EXIT_CONFIG
    assert done.stderr.startswith("rewardkit: error: ")
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr


def test_criterion_errors_exit_3_and_still_write_reward_json(task, tmp_path: Path) -> None:
    tests, ws = task({"c.py": "from rewardkit import criterion\n@criterion\ndef c(w):\n    1/0\n"})
    out = tmp_path / "r.json"
    done = cli(tests, "--workspace", ws, "--output", out)
    assert done.returncode == EXIT_CRITERION_ERRORS
    assert "criterion 'c' error: ZeroDivisionError" in done.stderr
    assert json.loads(out.read_text()) == {"reward": 0.0}


def test_on_error_flag_and_env(task, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tests, ws = task(
        {"c.py": OK + "from rewardkit import criterion\n@criterion\ndef c(w):\n    1/0\n"},
        {"f.txt": "x"},
    )
    out = tmp_path / "r.json"
    cli(tests, "--workspace", ws, "--output", out, "--on-error", "omit")
    assert json.loads(out.read_text()) == {"reward": 1.0}
    monkeypatch.setenv("REWARDKIT_ON_ERROR", "fail")
    assert build_parser().parse_args(["t"]).on_error == "fail"


def test_judge_env_needs_key_value(tmp_path: Path) -> None:
    done = cli(tmp_path, "--judge-env", "FOO")
    assert done.returncode == 2
    assert "--judge-env expects KEY=VALUE, got: 'FOO'" in done.stderr


def test_judge_env_reaches_criteria(task, tmp_path: Path) -> None:
    tests, ws = task(
        {"c.py": "import rewardkit as rk\nrk.command_succeeds('test \"$GREETING\" = hi')\n"}
    )
    out = tmp_path / "r.json"
    done = cli(tests, "--workspace", ws, "--output", out, "--je", "GREETING=hi")
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text()) == {"reward": 1.0}


@pytest.mark.parametrize(
    ("argv", "attr", "value"),
    [
        (["--max-concurrent-programmatic", "3"], "max_concurrent_programmatic", 3),
        (["--mcprog", "0"], "max_concurrent_programmatic", 0),
        (["--mcp", "4"], "max_concurrent_programmatic", 4),
        (["--mcllm", "5"], "max_concurrent_llm", 5),
        (["--mcl", "6"], "max_concurrent_llm", 6),
        (["--mcagent", "1"], "max_concurrent_agent", 1),
        (["--mca", "7"], "max_concurrent_agent", 7),
        (["-j", "claude-code"], "judge", "claude-code"),
        (["-m", "openai/gpt-5"], "model", "openai/gpt-5"),
        (["--effort", "low"], "reasoning_effort", "low"),
        (["--yolo"], "yolo", True),
        ([], "workspace", "/app"),
        ([], "output", "/logs/verifier/reward.json"),
        ([], "max_concurrent_agent", 2),
    ],
)
def test_every_rewardkit_flag(argv: list[str], attr: str, value: object) -> None:
    assert getattr(build_parser().parse_args(["tests", *argv]), attr) == value


def test_judge_flags_set_the_environment(
    task, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    tests, ws = task({"c.py": OK}, {"f.txt": "x"})
    for key in ("REWARDKIT_JUDGE", "REWARDKIT_MODEL", "REWARDKIT_REASONING_EFFORT"):
        monkeypatch.setenv(key, "")
    code = main(
        [
            str(tests),
            "--workspace",
            str(ws),
            "--output",
            str(tmp_path / "r.json"),
            "-j",
            "codex",
            "-m",
            "openai/gpt-5",
            "--effort",
            "high",
        ]
    )
    assert code == 0
    assert (os.environ["REWARDKIT_JUDGE"], os.environ["REWARDKIT_MODEL"]) == (
        "codex",
        "openai/gpt-5",
    )
    assert os.environ["REWARDKIT_REASONING_EFFORT"] == "high"


def test_help_is_fast_and_imports_nothing_heavy() -> None:
    code = (
        "import sys, rewardkit.cli as c\n"
        "try:\n    c.main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = {'litellm', 'httpx', 'pydantic', 'yaml', 'PIL', 'openpyxl', 'rich'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "--max-concurrent-programmatic" in done.stdout


def test_a_programmatic_run_imports_nothing_heavy(task, tmp_path: Path) -> None:
    tests, ws = task({"c.py": OK}, {"f.txt": "x"})
    code = (
        "import sys\nfrom rewardkit.cli import main\n"
        f"main([{str(tests)!r}, '--workspace', {str(ws)!r}, "
        f"'--output', {str(tmp_path / 'r.json')!r}])\n"
        "heavy = {'litellm', 'httpx', 'pydantic', 'yaml', 'PIL', 'openpyxl', 'rich'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


# --- a newcomer's first hour: the CLI tells the truth ---------------------------------------


def test_help_lists_every_command_and_the_exit_codes() -> None:
    done = cli("--help")
    assert done.returncode == 0
    for name in ("eval", "check", "score", "serve"):
        assert f"\n  {name} " in done.stdout
    assert "2  bad arguments or configuration: nothing ran" in done.stdout


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(flag: str) -> None:
    from rewardkit import __version__

    done = cli(flag)
    assert (done.returncode, done.stdout) == (0, f"rewardkit {__version__}\n")


def test_a_misspelt_command_gets_a_suggestion(tmp_path: Path) -> None:
    done = cli("evel", "x.yaml", cwd=tmp_path)
    assert done.returncode == EXIT_CONFIG
    assert "unknown command 'evel'. Did you mean 'eval'?" in done.stderr


def test_a_tests_dir_named_like_a_command_still_runs(task, tmp_path: Path) -> None:
    tests, ws = task({"a.py": OK}, {"f.txt": "x"})
    (tmp_path / "evl").symlink_to(tests)
    done = cli("evl", "--workspace", ws, "--output", tmp_path / "o" / "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "files",
    [
        {"c.py": "import rewardkit as rk\nrk.file_exists('f.txt'\n"},  # SyntaxError
        {"c.py": "import rewardkit as rk\nrk.file_exist('f.txt')\n"},  # no such criterion
        {},  # nothing to score
    ],
)
def test_check_and_a_run_both_exit_2_on_a_broken_tests_dir(
    task, tmp_path: Path, files: dict[str, str]
) -> None:
    tests, ws = task(files, {"f.txt": "x"})
    checked = cli("check", tests)
    assert checked.returncode == EXIT_CONFIG
    assert "rewardkit check: error:" in checked.stderr
    if files:
        assert "Did you mean 'file_exists'?" in checked.stderr or "SyntaxError" in checked.stderr
        ran = cli(tests, "--workspace", ws, "--output", tmp_path / "out" / "reward.json")
        assert ran.returncode == EXIT_CONFIG
        assert "c.py: failed to load" in ran.stderr
        assert not (tmp_path / "out" / "reward.json").exists()


def test_check_exits_2_on_a_misspelt_eval_yaml_key(tmp_path: Path) -> None:
    (tmp_path / "eval.yaml").write_text(
        "threshold: {}\njudges:\n  - {name: a, check: 'return 1'}\n"
    )
    done = cli("check", tmp_path / "eval.yaml")
    assert done.returncode == EXIT_CONFIG
    assert "unknown top-level key 'threshold' is ignored. Did you mean 'thresholds'?" in done.stderr


def test_check_passes_the_bundled_example() -> None:
    assert cli("check", Path(__file__).parents[1] / "examples" / "hello" / "tests").returncode == 0


def test_a_missing_workspace_is_a_config_error(task, tmp_path: Path) -> None:
    tests, _ = task({"a.py": OK}, {"f.txt": "x"})
    out = tmp_path / "o" / "reward.json"
    done = cli(tests, "--workspace", tmp_path / "nope", "--output", out)
    assert done.returncode == EXIT_CONFIG
    assert done.stderr.startswith("rewardkit: error: workspace not found:")
    assert not out.exists()


def test_the_default_output_is_announced(task, tmp_path: Path) -> None:
    tests, _ws = task({"a.py": OK}, {"f.txt": "x"})
    done = cli(tests, "--workspace", tmp_path / "nope")
    assert "rewardkit: writing /logs/verifier/reward.json (the default; --output PATH)" in (
        done.stderr
    )


def test_warnings_print_as_one_line_without_source(task, tmp_path: Path) -> None:
    warns = (
        "import warnings\nwarnings.warn('at import')\n\n@rk.criterion\n"
        "def noisy(workspace):\n    warnings.warn('inside a criterion')\n    return True\n"
    )
    tests, ws = task({"a.py": OK + warns}, {"f.txt": "x"})
    done = cli(tests, "--workspace", ws, "--output", tmp_path / "o" / "reward.json")
    lines = [line for line in done.stderr.splitlines() if "warning" in line]
    assert lines == ["rewardkit: warning: at import", "rewardkit: warning: inside a criterion"]
    assert "site-packages" not in done.stderr
    assert "/src/rewardkit/" not in done.stderr


def test_serve_on_a_port_in_use_is_a_config_error(task) -> None:
    import socket

    pytest.importorskip("uvicorn")
    tests, _ = task({"a.py": OK}, {"f.txt": "x"})
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        done = cli("serve", "--config", tests, "--port", str(port))
    assert done.returncode == EXIT_CONFIG
    assert f"cannot listen on 127.0.0.1:{port} (Address already in use)" in done.stderr


def test_an_eval_without_model_judges_imports_no_model_client(tmp_path: Path) -> None:
    case = tmp_path / "cases" / "c1"
    case.mkdir(parents=True)
    (case / "stdout.log").write_text("hi\n")
    (tmp_path / "eval.yaml").write_text(
        "name: one\njudges:\n  - name: ok\n    check: \"return 'hi' in outputs['stdout']\"\n"
    )
    unused = (  # no model judge: no client, no transport, not even the run's ledger or a loop
        "rewardkit.models", "rewardkit.evalyaml._pairwise", "rewardkit.evalyaml._llm_judge",
        "rewardkit.evalyaml._agent_judge", "rewardkit.evalyaml._template", "rewardkit.judges",
        "rewardkit.criteria", "rewardkit.report._diagnose", "rewardkit.report._report", "httpx",
        "litellm", "jinja2", "asyncio",
    )  # fmt: skip
    code = (
        "import sys\nfrom rewardkit.cli import main\n"
        f"code = main(['eval', {str(tmp_path / 'eval.yaml')!r}, '--cases', "
        f"{str(tmp_path / 'cases')!r}, '--out', {str(tmp_path / 'out')!r}, '--no-progress'])\n"
        f"loaded = sorted(m for m in sys.modules if m.startswith({unused!r}))\n"
        "assert code == 0 and not loaded, (code, loaded)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    (line,) = (tmp_path / "out" / "cases.jsonl").read_text().splitlines()
    assert json.loads(line)["judges"]["ok"]["status"] == "scored"  # judged in a worker


def test_ctrl_c_ends_an_eval_with_a_line_and_its_workers_with_it(tmp_path: Path) -> None:
    """SIGINT while judges hang in their workers: exit 130 at once, no traceback, no orphan."""
    for case in ("c1", "c2"):
        (tmp_path / "cases" / case).mkdir(parents=True)
        (tmp_path / "cases" / case / "stdout.log").write_text("hi\n")
    (tmp_path / "eval.yaml").write_text(
        "judges:\n  - name: slow\n    check: |\n      import time\n      time.sleep(600)\n"
    )
    command = [sys.executable, "-m", "rewardkit", "eval", str(tmp_path / "eval.yaml")]
    command += ["--cases", str(tmp_path / "cases"), "--out", str(tmp_path / "out")]
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True) as proc:
        workers: list[int] = []
        for _ in range(200):  # each chunk's worker, forked once the suite has loaded
            workers = [int(p) for p in _children(proc.pid)]
            if len(workers) == 2:
                break
            time.sleep(0.05)
        assert len(workers) == 2
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.stderr is not None
        errors = proc.stderr.read()
        code = proc.wait(timeout=30)
    assert time.monotonic() - started < 5
    assert code == 130
    assert "rewardkit: interrupted" in errors
    assert "Traceback" not in errors
    for _ in range(100):
        if not any(_running(pid) for pid in workers):
            break
        time.sleep(0.05)
    assert not any(_running(pid) for pid in workers)


def _children(pid: int) -> list[str]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return found.stdout.split()


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def test_a_closed_output_ends_quietly(tmp_path: Path) -> None:
    """`rewardkit check eval.yaml | head`: no BrokenPipeError traceback, the shell's 141."""
    (tmp_path / "eval.yaml").write_text("judges:\n  - {name: ok, check: 'True'}\n")
    command = [sys.executable, "-m", "rewardkit", "check", str(tmp_path / "eval.yaml")]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        out, err = proc.stdout, proc.stderr
        assert out is not None
        assert err is not None
        out.close()  # the reader is gone before the command writes
        errors = err.read().decode()
        code = proc.wait(timeout=60)
    assert code == 141
    assert "Traceback" not in errors
    assert "BrokenPipe" not in errors


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ('rk.file_exists("out.txt", weight="2")', "weight must be a number; write weight=2"),
        ('rk.file_exists("out.txt", weight=None)', "weight must be a number; pass a number"),
        ("rk.file_exists(42)", "rk.file_exists(path=42): path must be str, not int"),
    ],
)
def test_a_wrong_argument_is_a_load_error_at_its_line(
    tmp_path: Path, call: str, message: str
) -> None:
    """`check` fails on the call itself (file and line), not later inside the criterion."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "checks.py").write_text(f"import rewardkit as rk\n\n{call}\n")
    done = cli("check", tests)
    assert done.returncode == 2
    assert message in done.stderr
    assert "(checks.py:3)" in done.stderr
    assert "negative weights" not in done.stderr
