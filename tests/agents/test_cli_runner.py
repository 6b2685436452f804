"""eval.yaml agent judges on the harness's generic CLI runner (`runner: {type: cli, ...}`),
against a fake judge command written into `tmp_path/bin`.

The fake takes its control directory and what to do from its own command line (the eval.yaml
puts them there), records each call (argv, stdin, cwd, environment, the files it sees, the
file its last argument names) in `calls.jsonl`, and answers as told: `file:V` writes `output/score.json`, `stdout:V` prints a
verdict after some chatter, `garbage` prints none, `fail` exits 3, `hang` starts a grandchild
and sleeps, `flood:V` prints 3 MiB before its verdict.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from rewardkit.core._errors import ConfigError
from rewardkit.evalyaml._suite import load_suite
from rewardkit.judges.agents._base import run_cli

from .test_eval_agent_judges import run

FAKE = """\
import json, os, subprocess, sys, time
from pathlib import Path

ctl, mode = Path(sys.argv[1]), sys.argv[2]
stdin = sys.stdin.read()
listing = sorted(str(p) for p in Path(".").rglob("*") if p.is_file())
last = Path(sys.argv[-1])
entry = {"argv": sys.argv[1:], "stdin": stdin, "cwd": os.getcwd(),
         "environ": dict(os.environ), "listing": listing,
         "last_file": last.read_text() if last.is_absolute() and last.is_file() else None}
with open(ctl / "calls.jsonl", "a") as log:
    log.write(json.dumps(entry) + "\\n")
kind, _, value = mode.partition(":")
verdict = {"score": json.loads(value or "true"), "rationale": kind + " verdict"}
if kind == "file":
    Path("output/score.json").write_text(json.dumps(verdict))
    print("wrote output/score.json")
elif kind == "stdout":
    print("thinking {about it}\\n" + json.dumps(verdict) + "\\ndone")
elif kind == "garbage":
    print("%%% no verdict here, only noise: 3 %%%")
elif kind == "fail":
    print("boom: model unavailable", file=sys.stderr)
    sys.exit(3)
elif kind == "hang":
    child = subprocess.Popen(["sleep", "60"])
    (ctl / "grandchild.pid").write_text(str(child.pid))
    time.sleep(60)
elif kind == "flood":
    sys.stdout.write("x" * (3 << 20) + "\\n" + json.dumps(verdict) + "\\n")
"""


@pytest.fixture
def ctl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`fake-judge` on PATH (nothing else but /usr/bin and /bin); its control directory."""
    bin_dir, ctl = tmp_path / "bin", tmp_path / "ctl"
    bin_dir.mkdir()
    ctl.mkdir()
    exe = bin_dir / "fake-judge"
    exe.write_text(f"#!{sys.executable}\n{FAKE}")
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.setenv("REWARDKIT_LOG_DIR", str(tmp_path / "logs"))
    return ctl


def calls(ctl: Path) -> list[dict[str, Any]]:
    log = ctl / "calls.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def project(tmp_path: Path, judges: str) -> Path:
    """An eval.yaml with `judges`, and one recorded case directory `cases/c0`."""
    (tmp_path / "eval.yaml").write_text(
        "dataset: {path: cases}\njudges:\n" + textwrap.indent(textwrap.dedent(judges), "  ")
    )
    case = tmp_path / "cases" / "c0"
    case.mkdir(parents=True)
    (case / "input.yaml").write_text("question: 'What is 2 + 2? $(touch PWNED); echo {model}'\n")
    (case / "answer.txt").write_text("4\n")
    (case / "stdout.log").write_text("the agent said 4\n")
    return tmp_path / "eval.yaml"


def one_judge(ctl: Path, mode: str, extra: str = "", scale: str = "feedback_type: bool") -> str:
    return f"""
    - name: q
      prompt: "Is {{{{ input.question }}}} answered?"
      {scale}
      agent:
        runner: {{type: cli, command: "fake-judge {ctl} {mode} {{args}}"{extra}}}
        timeout: 20
    """


def test_rewardkit_eval_scores_a_case_with_cli_judges(ctl: Path, tmp_path: Path) -> None:
    path = project(
        tmp_path,
        f"""
        - name: rated
          prompt: Rate the answer.
          score_range: [1, 5]
          model: my-model
          agent:
            runner:
              type: cli
              command: [fake-judge, "{ctl}", "file:5", --model, "{{model}}", --timeout,
                        "{{timeout}}", --out, "{{output_dir}}", --ws, "{{workspace}}",
                        --cfg, "{{config_dir}}", --budget, "{{max_budget_usd}}", --effort,
                        "{{effort}}", --system, "{{system_prompt}}", --file, "{{prompt_file}}",
                        --keep, "{{unknown}}", "{{args}}"]
              effort: high
              system_prompt: Be strict.
            timeout: 20
            max_budget_usd: 1.5
        - name: right
          prompt: "Is {{{{ input.question }}}} answered?"
          feedback_type: bool
          agent: {{runner: {{type: cli, command: "fake-judge {ctl} stdout:true {{args}}"}}}}
        """,
    )
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "rewardkit", "eval", str(path), "--out", str(out), "--no-progress"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (case,) = [json.loads(line) for line in (out / "cases.jsonl").read_text().splitlines()]
    assert case["judges"]["rated"] == {"value": 5, "status": "scored", "rationale": "file verdict"}
    assert case["judges"]["right"]["value"] is True
    assert case["judges"]["right"]["rationale"] == "stdout verdict"
    assert json.loads((out / "summary.json").read_text())["judges"]["rated"]["mean"] == 5

    by_mode = {c["argv"][1]: c for c in calls(ctl)}
    rated, right = by_mode["file:5"], by_mode["stdout:true"]
    argv = rated["argv"]
    flags = dict(zip(argv[2:-1:2], argv[3:-1:2], strict=True))
    cwd = Path(rated["cwd"])
    assert flags == {
        "--model": "my-model",
        "--timeout": "20",
        "--out": str(cwd / "output"),
        "--ws": str(cwd),
        "--cfg": str(tmp_path.resolve()),
        "--budget": "1.5",
        "--effort": "high",
        "--system": "Be strict.",
        "--file": flags["--file"],
        "--keep": "{unknown}",  # as in the harness: a placeholder it does not know stays
    }
    assert argv[-1] == rated["stdin"]  # the prompt: as {args}, on stdin, in {prompt_file}
    assert Path(flags["--file"]).name == "prompt.md"
    assert not Path(flags["--file"]).is_relative_to(cwd)  # beside the copy, not in it
    assert "Rate the answer." in argv[-1]
    assert "output/score.json" in argv[-1]
    assert cwd.resolve() != (tmp_path / "cases" / "c0").resolve()
    assert {"answer.txt", "stdout.log"} <= set(rated["listing"])
    assert "input.yaml" not in rated["listing"]  # the given half is never staged as the work
    # the case's text stays inside one argument: no shell, no second round of placeholders
    assert right["argv"][-1] == right["stdin"]
    assert "What is 2 + 2? $(touch PWNED); echo {model} answered?" in right["argv"][-1]
    assert len(right["argv"]) == 3
    assert not list(tmp_path.rglob("PWNED"))
    assert sorted(p.name for p in (tmp_path / "cases" / "c0").iterdir()) == [
        "answer.txt",
        "input.yaml",
        "stdout.log",
    ]  # the case is never changed


def test_a_hanging_cli_is_killed_at_the_judge_timeout(ctl: Path, tmp_path: Path) -> None:
    path = project(tmp_path, one_judge(ctl, "hang").replace("timeout: 20", "timeout: 1"))
    started = time.monotonic()
    (outcome,) = run(path)
    assert time.monotonic() - started < 10
    assert outcome.status == "timeout"
    assert "timed out after 1s" in str(outcome.error)
    assert len(calls(ctl)) == 1  # a timeout is not retried
    grandchild = int((ctl / "grandchild.pid").read_text())
    assert _gone(grandchild)  # its whole process group was killed


def test_a_cli_printing_garbage_is_an_error_that_says_why(ctl: Path, tmp_path: Path) -> None:
    (outcome,) = run(project(tmp_path, one_judge(ctl, "garbage", scale="score_range: [1, 5]")))
    assert outcome.status == "error"
    error = str(outcome.error)
    assert error.startswith("cli judge failed after 3 attempts: the command wrote no ")
    assert 'printed no {"score": ...} or {"passed": ...} JSON object' in error
    assert "only noise: 3 %%%" in error  # the end of what it printed; no number taken from it
    assert len(calls(ctl)) == 3


def test_a_failing_cli_is_retried_and_its_stderr_reported(ctl: Path, tmp_path: Path) -> None:
    (outcome,) = run(project(tmp_path, one_judge(ctl, "fail")))
    assert outcome.status == "error"
    assert "`fake-judge` exited with code 3: boom: model unavailable" in str(outcome.error)
    assert len(calls(ctl)) == 3


def test_stdout_is_capped_and_its_end_kept(ctl: Path, tmp_path: Path) -> None:
    (outcome,) = run(project(tmp_path, one_judge(ctl, "flood:true")))
    assert (outcome.status, outcome.raw) == ("scored", True)
    (log,) = outcome.extra["judge_logs"]
    assert Path(log).stat().st_size < 2 << 20  # 1 MiB of stdout kept, not 3


def test_output_is_kept_up_to_the_limit() -> None:
    code = "import sys; sys.stdout.write('a' * 100000 + 'END'); sys.stderr.write('e' * 10)"
    result = asyncio.run(
        run_cli([sys.executable, "-c", code], cwd=Path.cwd(), env=os.environ, timeout=30, limit=50)
    )
    assert result.stdout == f"[... {100003 - 50} bytes cut ...]\n" + "a" * 47 + "END"
    assert result.stderr == "e" * 10


def test_the_environment_is_the_allow_list_plus_runner_env(
    ctl: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "planted-secret-0123456789")
    monkeypatch.setenv("DATABASE_URL", "postgres://admin:planted-password@db/prod")
    monkeypatch.setenv("JUDGE_TOKEN", "listed-token-0123456789")
    monkeypatch.setenv("GATEWAY_KEY", "forwarded-key-0123456789")
    monkeypatch.setenv("REWARDKIT_AGENT_ENV", "JUDGE_TOKEN")
    extra = ", env: {GATEWAY: $GATEWAY_KEY, MODE: strict, RETRIES: 2, ABSENT: $NOT_SET}"
    (outcome,) = run(project(tmp_path, one_judge(ctl, "stdout:true", extra)))
    assert outcome.status == "scored", outcome.error
    (call,) = calls(ctl)
    environ = call["environ"]
    assert environ["JUDGE_TOKEN"] == "listed-token-0123456789"  # REWARDKIT_AGENT_ENV
    assert environ["GATEWAY"] == "forwarded-key-0123456789"  # runner.env's $NAME
    assert (environ["MODE"], environ["RETRIES"]) == ("strict", "2")
    assert "ABSENT" not in environ
    for planted in ("planted-secret", "planted-password", "forwarded-key"):
        assert not any(planted in v for k, v in environ.items() if k != "GATEWAY")
    assert not {"AWS_SECRET_ACCESS_KEY", "DATABASE_URL", "GATEWAY_KEY"} & set(environ)
    assert "REWARDKIT_AGENT_ENV" not in environ


def test_a_secret_set_for_the_run_is_hidden_unless_listed(
    ctl: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_SECRET", "s3cret-value-0123456789")
    (outcome,) = run(project(tmp_path, one_judge(ctl, "stdout:true")))
    assert outcome.status == "scored"
    assert "MY_SECRET" not in calls(ctl)[0]["environ"]


def test_a_missing_program_is_an_error_naming_the_command(ctl: Path, tmp_path: Path) -> None:
    path = project(tmp_path, one_judge(ctl, "stdout:true").replace("fake-judge", "no-such-judge"))
    (outcome,) = run(path)
    assert outcome.status == "error"
    assert "agent.runner.command: the program `no-such-judge` was not found" in str(outcome.error)


def test_a_program_beside_the_eval_yaml_runs_through_config_dir(ctl: Path, tmp_path: Path) -> None:
    (tmp_path / "judge").symlink_to(tmp_path / "bin" / "fake-judge")
    command = f'["{{config_dir}}/judge", "{ctl}", "file:true", "{{args}}"]'
    path = project(
        tmp_path,
        f"- {{name: q, prompt: 'Right?', feedback_type: bool, "
        f"agent: {{runner: {{type: cli, command: {command}}}}}}}",
    )
    (outcome,) = run(path)
    assert (outcome.status, outcome.raw) == ("scored", True)


@pytest.mark.parametrize(
    ("runner", "key", "message"),
    [
        ("{type: cli}", "command", "is required for a cli runner"),
        ("cli", "command", "a cli runner needs its command"),
        ("{type: cli, command: 3}", "command", "must be a string or a list of strings (got 3)"),
        ("{type: cli, command: []}", "command", "must name a program"),
        ("{type: cli, command: 'j \"x'}", "command", "cannot be split into words"),
        ("{type: cli, command: ./judge.sh}", "command", "write {config_dir}/judge.sh"),
        ("{type: cli, command: '{args}'}", "command", "may use no placeholder"),
        # the case's text never becomes a shell script: the agent's output would be commands
        ("{type: cli, command: \"bash -c 'judge {args}'\"}", "command", "shell's -c script"),
        ("{type: cli, command: [sh, -lc, 'judge \"{args}\"']}", "command", "shell's -c script"),
        ("{type: cli, command: j, env: [A]}", "env", "must be a mapping"),
        ("{type: cli, command: j, env: {1A: x}}", "env", "'1A' is not a variable name"),
        ("{type: cli, command: j, env: {A: null}}", "env", "A: must be a string"),
        ("{type: cli, command: j, system_prompt: [x]}", "system_prompt", "must be a string"),
        ("{type: cli, command: j, effort: 3}", "effort", "must be a string"),
        ("{type: cli, command: j, cmd: x}", "", "unknown key 'cmd'"),
    ],
)
def test_bad_runner_fields_fail_at_load(
    tmp_path: Path, runner: str, key: str, message: str
) -> None:
    path = project(
        tmp_path, f"- {{name: q, prompt: x, feedback_type: bool, agent: {{runner: {runner}}}}}"
    )
    with pytest.raises((ConfigError, ExceptionGroup)) as info:
        load_suite(path)
    text = _text(info.value)
    assert f".agent.runner{'.' + key if key else ''}: " in text
    assert message in text


def test_a_bad_runner_field_is_a_one_line_error_and_exit_2(tmp_path: Path) -> None:
    path = project(
        tmp_path,
        "- {name: q, prompt: x, feedback_type: bool, agent: {runner: {type: cli, command: 7}}}",
    )
    done = subprocess.run(
        [sys.executable, "-m", "rewardkit", "eval", str(path), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert "agent.runner.command: must be a string or a list of strings (got 7)" in line


def test_a_program_in_the_agents_directories_is_refused(tmp_path: Path) -> None:
    path = project(
        tmp_path,
        "- {name: q, prompt: x, feedback_type: bool, agent: {runner: {type: cli, command: x}}}",
    )
    judge = tmp_path / "cases" / "c0" / "judge.sh"
    text = path.read_text().replace("command: x", f"command: {judge}")
    path.write_text(text)
    with pytest.raises((ConfigError, ExceptionGroup)) as info:
        load_suite(path, untrusted=(tmp_path / "cases",))
    assert "agent.runner.command: " in _text(info.value)
    assert "written by the graded agent" in _text(info.value)


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if _zombie(pid):
            return True
        time.sleep(0.05)
    return False


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True


def _text(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "\n".join(_text(e) for e in exc.exceptions)
    return str(exc)


@pytest.mark.parametrize("passed", ["{args}", "{prompt_file}"])
def test_a_prompt_too_long_for_one_argument(ctl: Path, tmp_path: Path, passed: str) -> None:
    long = "é" * 70_000  # 140,000 bytes: more than Linux takes in one argument (128 KiB)
    judge = one_judge(ctl, "stdout:true").replace("{args}", passed)
    (outcome,) = run(project(tmp_path, judge.replace("Is {{ input.question }} answered?", long)))
    if passed == "{args}":
        assert outcome.status == "error"
        assert "Argument list too long" in str(outcome.error)
        assert "pass it with {prompt_file} or on stdin" in str(outcome.error)
    else:
        assert (outcome.status, outcome.raw) == ("scored", True)
        (call,) = calls(ctl)
        assert long in call["last_file"]  # the file {prompt_file} named
        assert long in call["stdin"]


def test_a_secret_forwarded_under_a_harmless_name_is_still_hidden(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`env: {JUDGE_CRED: $ANTHROPIC_API_KEY}`: the value's name in the CLI's environment is
    harmless, but it is the verifier's secret, so logs and errors never show it."""
    from rewardkit.judges.agents._base import redact

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-forwarded-0123456789")
    text = "auth failed for sk-ant-forwarded-0123456789 (JUDGE_CRED)"
    assert redact(text, {"JUDGE_CRED": "sk-ant-forwarded-0123456789"}) == (
        "auth failed for *** (JUDGE_CRED)"
    )


def test_a_batch_run_runs_agent_judges_once_in_its_last_pass(ctl: Path, tmp_path: Path) -> None:
    """`--batch-api` scores twice (collect, then for real): an agent CLI runs only the second
    time, since its model calls are its own and cannot be batched."""
    path = project(tmp_path, one_judge(ctl, "stdout:true"))
    cmd = [sys.executable, "-m", "rewardkit", "eval", str(path), "--out", str(tmp_path / "out")]
    got = subprocess.run(
        [*cmd, "--batch-api", str(tmp_path / "state")], capture_output=True, text=True, timeout=60
    )
    assert got.returncode == 0, got.stderr
    assert "0 model calls to batch, in 0 batch(es)" in got.stderr
    assert len(calls(ctl)) == 1
    (line,) = (tmp_path / "out" / "cases.jsonl").read_text().splitlines()
    assert json.loads(line)["judges"]["q"]["value"] is True
