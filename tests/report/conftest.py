"""Sample inputs for reports: Harbor job directories (one with broken trials, one whose trials
have several reward keys), results files, and an eval run with its eval.yaml and case
directories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from rewardkit.cli import main as rewardkit

TASKS = ("fix-bug", "add-feature", "write-docs", "refactor")
HOSTILE = "</script><img src=x onerror=alert(1)>"
"""An agent's output that would run script if the page did not escape it."""


def _criterion(name: str, value: object, **extra: object) -> dict[str, object]:
    number = float(value) if isinstance(value, bool | int | float) else None
    entry: dict[str, object] = {"name": name, "value": number, "raw": value, "weight": 1.0}
    return entry | {"status": "scored", "duration_ms": 1.0} | extra


def _details(tests_pass: bool, exists: bool, quality: dict[str, object]) -> dict[str, object]:
    checks = (tests_pass + exists) / 2
    q = quality.get("value") or 0.0
    score = round((2 * checks + q) / 3, 4)  # type: ignore[operator]
    return {
        "reward": {
            "kind": "group",
            "score": score,
            "aggregation": "weighted-mean",
            "components": [
                {
                    "name": "checks",
                    "weight": 2.0,
                    "detail": {
                        "score": checks,
                        "kind": "programmatic",
                        "criteria": [
                            _criterion("tests_pass", tests_pass),
                            _criterion("file_exists:out.txt", exists),
                        ],
                    },
                },
                {
                    "name": "quality",
                    "weight": 1.0,
                    "detail": {"score": q, "kind": "llm", "criteria": [quality]},
                },
            ],
        }
    }


def write_job(root: Path) -> Path:
    """`root/demo-job`: 4 tasks by 3 trials, an errored and a timed-out judge, and 3 bad trials."""
    job = root / "demo-job"
    for t, task in enumerate(TASKS):
        for trial in range(3):
            tests_pass = (t + trial) % 3 != 0
            exists = trial != 2 or t == 0
            quality = _criterion(
                "readability",
                round(0.2 + 0.25 * ((t * 3 + trial) % 4), 2),
                reasoning=f"<b>clear</b> code for {task}",
                model="fake/judge",
            )
            if (t, trial) == (1, 1):
                quality = {
                    "name": "readability",
                    "value": None,
                    "raw": None,
                    "weight": 1.0,
                    "error": "JudgeUnavailable: fake/judge: 503 <script>x</script>",
                    "status": "error",
                    "duration_ms": 3.0,
                }
            if (t, trial) == (2, 0):
                quality = {
                    "name": "readability",
                    "value": None,
                    "raw": None,
                    "weight": 1.0,
                    "error": "no reply within 30s",
                    "status": "timeout",
                    "duration_ms": 3.0,
                }
            details = _details(tests_pass, exists, quality)
            verifier = job / f"{task}__{t}{trial}abc" / "verifier"
            verifier.mkdir(parents=True)
            reward = details["reward"]["score"]  # type: ignore[index]
            (verifier / "reward.json").write_text(json.dumps({"reward": reward}))
            (verifier / "reward-details.json").write_text(json.dumps(details))
            _agent_log(verifier.parent / "agent", task, t, trial)
    broken = job / "broken__x1" / "verifier"
    broken.mkdir(parents=True)
    (broken / "reward.json").write_text('{"reward": 0.')  # truncated
    old = job / "legacy__x1" / "verifier"
    old.mkdir(parents=True)
    (old / "reward.txt").write_text("0.5\n")
    legacy = {
        "reward": {
            "score": 0.5,
            "kind": "programmatic",
            "criteria": [
                {"name": "tests_pass", "value": 1.0, "raw": True, "weight": 1.0},
                {
                    "name": "lint",
                    "value": 0.0,
                    "raw": None,
                    "weight": 1.0,
                    "error": "ValueError: boom",
                },
            ],
        }
    }  # an older rewardkit: no status
    (old / "reward-details.json").write_text(json.dumps(legacy))
    empty = job / "crashed__x1" / "verifier"
    empty.mkdir(parents=True)
    (empty / "test-stdout.txt").write_text("killed")
    return job


def _agent_log(agent: Path, task: str, t: int, trial: int) -> None:
    """The agent's transcript; one hostile, one far longer than the page shows."""
    agent.mkdir()
    text = f"$ claude -p 'Do the task: {task}'\nReading the repository…\nEdited src/{task}.py\n"
    if (t, trial) == (0, 1):
        text += f"Wrote the summary: {HOSTILE}\n"
    if (t, trial) == (3, 2):
        text += "".join(f"step {i}: ran the tests again\n" for i in range(1000))
    (agent / "claude-code.txt").write_text(text)


@pytest.fixture
def job(tmp_path: Path) -> Path:
    return write_job(tmp_path)


CORRECTNESS = """\
import rewardkit as rk

rk.file_exists("out.txt")
rk.file_contains("out.txt", "fixed")
"""
STYLE = """\
import rewardkit as rk

rk.file_contains("out.txt", "# documented")
"""
REWARD_TOML = """\
[[reward]]
name = "reward"
aggregation = "weighted-mean"
weights = { correctness = 3.0, style = 1.0 }
"""
OUTPUTS = ("fixed\n# documented\n", "fixed\n", "left as it was\n")
"""What a trial's agent left in `out.txt`: `{correctness: 1, style: 1, reward: 1}`, then
`{1, 0, 0.75}`, then `{0.5, 0, 0.375}` (an older task: `{correctness}` alone)."""


def write_keyed_job(root: Path) -> Path:
    """`root/keyed-job`: each trial's `verifier/reward.json` written by `rewardkit TESTS
    --workspace W --output ...`, as a task's test.sh runs it in Harbor's verifier.

    `fix-bug` and `add-feature` (3 trials each) have a tests dir of two dimensions,
    `correctness/` and `style/`, and a `reward.toml` adding `reward` (weights 3 and 1); the
    2 trials of `old-task` were scored by its older tests dir (`correctness/` alone), so their
    `reward.json` lacks `style` and `reward`.
    """
    tests = root / "task-tests"
    (tests / "correctness").mkdir(parents=True)
    (tests / "correctness" / "check.py").write_text(CORRECTNESS)
    (tests / "style").mkdir()
    (tests / "style" / "check.py").write_text(STYLE)
    (tests / "reward.toml").write_text(REWARD_TOML)
    old = root / "old-tests"
    (old / "correctness").mkdir(parents=True)
    (old / "correctness" / "check.py").write_text(CORRECTNESS)
    job = root / "keyed-job"
    plan = [("fix-bug", tests, 3), ("add-feature", tests, 3), ("old-task", old, 2)]
    for task, task_tests, trials in plan:
        for trial in range(trials):
            name = f"{task}__{trial}xyz"
            workspace = root / "workspaces" / name
            workspace.mkdir(parents=True)
            (workspace / "out.txt").write_text(OUTPUTS[trial])
            output = job / name / "verifier" / "reward.json"
            argv = [str(task_tests), "--workspace", str(workspace), "--output", str(output)]
            assert rewardkit(argv) == 0
            (job / name / "result.json").write_text(json.dumps({"trial_name": name}))
    return job


@pytest.fixture
def keyed_job(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    job = write_keyed_job(tmp_path)
    capsys.readouterr()  # what the scoring printed
    return job


def write_results(path: Path) -> Path:
    """10 groups of 4 samples: `correct` varies in half the groups, `format` is always 1, and
    the reward grows with the completion length within each group (length gaming)."""
    lines = []
    for g in range(10):
        for s in range(4):
            correct = float(g < 5 and s >= 2)
            style = round(0.25 * s, 2)
            reward = round((correct + style + 1.0) / 3, 4)
            lines.append(
                {
                    "id": f"g{g}-s{s}",
                    "line": len(lines) + 1,
                    "reward": reward,
                    "valid": True,
                    "judges": {"correct": correct, "format": 1.0, "style": style},
                    "group": f"prompt-{g}",
                    "length": 100 + 50 * s + g,
                }
            )
    lines.append(
        {
            "id": "bad",
            "line": 41,
            "reward": None,
            "valid": False,
            "judges": {},
            "error": "deadline of 30s exceeded",
            "metadata": {"group": "prompt-0"},
        }
    )
    path.write_text("\n".join(json.dumps(line) for line in lines) + '\n{"id": "cut')
    return path


@pytest.fixture
def results(tmp_path: Path) -> Path:
    return write_results(tmp_path / "results.jsonl")


TICKETS = (
    ("refund-late", "billing", "My order #4411 arrived two weeks late. Can I get a refund?"),
    ("password-reset", "account", "I never get the password reset e-mail."),
    ("double-charge", "billing", "I was charged twice for the same subscription this month."),
    ("api-timeout", "technical", "Your API times out on every request over 1 MB since Monday."),
    ("cancel-plan", "account", "How do I cancel my plan without losing my invoices?"),
    ("dark-mode", "feature", "Please add a dark mode to the dashboard."),
    ("export-csv", "technical", "The CSV export drops every row after 10,000."),
    ("gdpr-delete", "account", "Delete all my personal data under the GDPR."),
    ("invoice-vat", "billing", "My invoice shows the wrong VAT number."),
    ("sso-saml", "technical", "SAML login fails with 'audience mismatch' for our Okta tenant."),
)
EVAL_YAML = """\
name: support-triage
description: Replies of a support agent to customer tickets.
dataset:
  path: cases
judges:
  - name: category
    description: The reply files the ticket under the expected category.
    check: |
      return outputs["files"].get("category.txt", "").strip() == "billing", "compared"
  - name: polite
    check: |
      return "sorry" in outputs["files"].get("reply.md", "").lower(), "looked for an apology"
  - name: helpful
    description: How far the reply solves the customer's problem (1-5).
    check: |
      return 3, "a fixed score"
    score_range: [1, 5]
reward:
  weights: {category: 1, polite: 1, helpful: 2}
"""


def _ticket_entry(i: int, category: str) -> dict[str, object]:
    """One case's `per_case` entry, as `rewardkit eval` writes it."""
    right = i % 4 != 3
    polite = i % 3 != 2
    helpful = 1 + (i * 7) % 5
    judges: dict[str, object] = {
        "category": {
            "value": right,
            "status": "scored",
            "rationale": f"filed as {category if right else 'other'}, expected {category}",
        },
        "polite": {
            "value": polite,
            "status": "scored",
            "rationale": "opens with an apology" if polite else "no apology, curt tone",
        },
        "helpful": {
            "value": helpful,
            "status": "scored",
            "rationale": f"{'gives the next steps' if helpful >= 3 else 'vague'} ({helpful}/5)",
        },
    }
    if i == 5:
        judges["helpful"] = {
            "value": None,
            "status": "error",
            "rationale": "",
            "error": "JudgeUnavailable: judge model: 503 Service Unavailable",
        }
        return {"reward": None, "judges": judges}
    reward = (right + polite + 2 * (helpful - 1) / 4) / 4
    return {"reward": round(reward, 4), "judges": judges}


def write_eval_run(root: Path) -> tuple[Path, Path]:
    """An eval run of a 10-case support suite (`root/run/summary.json`) and its eval.yaml;
    one reply is hostile markup, one far longer than the page shows."""
    suite = root / "suite"
    suite.mkdir()
    (suite / "eval.yaml").write_text(EVAL_YAML)
    per_case = {}
    for i, (name, category, ticket) in enumerate(TICKETS):
        case = suite / "cases" / name
        case.mkdir(parents=True)
        (case / "input.yaml").write_text(
            yaml.safe_dump({"ticket": ticket, "customer": f"c-{i}"}, sort_keys=False)
        )
        (case / "annotations.yaml").write_text(yaml.safe_dump({"category": category}))
        reply = f"Hi,\n\nSorry about this. For '{ticket}', here is what to do next: …\n"
        if name == "dark-mode":
            reply = f"Noted! {HOSTILE}"
        if name == "sso-saml":
            reply += "".join(f"- check SAML setting {n} of the Okta app\n" for n in range(400))
        (case / "reply.md").write_text(reply)
        (case / "category.txt").write_text(category if i % 4 != 3 else "other")
        per_case[name] = _ticket_entry(i, category)
    composition = {
        "mode": "weighted",
        "weights": {"category": 1, "polite": 1, "helpful": 2},
        "score_ranges": {"helpful": [1, 5]},
    }
    run = root / "run"
    run.mkdir()
    summary = {"run_id": None, "judges": {}, "per_case": per_case, "composition": composition}
    (run / "summary.json").write_text(json.dumps(summary))
    return run, suite / "eval.yaml"


@pytest.fixture
def eval_run(tmp_path: Path) -> tuple[Path, Path]:
    return write_eval_run(tmp_path)
