"""`rewardkit report calibration.json`: the calibration of examples/calibration, made by
`rewardkit calibrate` against the example's stand-in judge, as the terminal table, as JSON and
as an HTML page; a hostile judge name is escaped; a malformed file exits 2 in one line."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rewardkit.calibration import table_lines

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "calibration"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def calibration(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """calibration.json of the worked example in docs/calibration.md, with the probes."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, str(EXAMPLE / "stand_in_judge.py"), "--port", str(port)]
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    break
            except OSError:
                assert server.poll() is None, "the stand-in judge exited"
                assert time.monotonic() < deadline, "the stand-in judge did not start"
                time.sleep(0.1)
        out = tmp_path_factory.mktemp("calibration") / "calibration.json"
        env = {**os.environ, "REWARDKIT_API_BASE": f"http://127.0.0.1:{port}/v1"}
        env.pop("REWARDKIT_CACHE_DIR", None)
        done = subprocess.run(
            [
                *(sys.executable, "-m", "rewardkit", "calibrate", str(EXAMPLE / "labels.jsonl")),
                *("--eval", str(EXAMPLE), "--probes", "--out", str(out)),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        yield out
    finally:
        server.kill()
        server.wait()


def _report(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "rewardkit", "report", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_terminal_table_is_calibrates(calibration: Path) -> None:
    done = _report(str(calibration))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == table_lines(_load(calibration))
    assert "kappa                     0.871  [0.556, 1.000]" in done.stdout
    assert "pass/pass 9, pass/fail 1, fail/pass 0, fail/fail 6" in done.stdout


def test_json_echoes_the_figures(calibration: Path) -> None:
    done = _report(str(calibration), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == _load(calibration)


def _no_requests(html: str) -> None:
    html = html.replace('xmlns="http://www.w3.org/2000/svg"', "")  # a name, not a request
    assert not re.search(r"https?:", html), "the page loads or links something"
    assert not re.search(r"(?i)<(link|img|iframe|object|embed)\b", html)
    assert not re.search(r"(?i)\bsrc\s*=|@import|url\(", html)


def test_html_has_the_calibration_section(calibration: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    done = _report(str(calibration), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stdout
    html = out.read_text()
    assert '<section id="calibration">' in html
    assert "<h2>Calibration</h2>" in html
    assert "against pass/fail labels: 16 of 16 items judged" in html
    for shown in ("accuracy", "precision", "recall", "Cohen&#39;s κ"):
        assert f"<td>{shown}</td>" in html, shown
    assert '<td class="num">0.871</td><td class="num">[0.556, 1.000]</td>' in html
    # the confusion matrix: judge pass/fail by people pass/fail
    assert '<tr><th>judge: pass</th><td class="num">9</td><td class="num">1</td></tr>' in html
    assert '<tr><th>judge: fail</th><td class="num">0</td><td class="num">6</td></tr>' in html
    assert '<td>padding</td><td class="num">16</td><td class="num">0.375</td>' in html
    assert "<td>confident_wrong</td>" in html
    assert "<h3>Thresholds</h3>" in html
    # the run report's look, in one file
    assert "section { background: #fff;" in html
    _no_requests(html)


def test_scores_thresholds_and_a_hostile_judge_are_escaped(
    calibration: Path, tmp_path: Path
) -> None:
    data = _load(calibration)
    hostile = '<script>alert("x")</script><img src=https://evil.example/x>'
    data["judge"] = {"name": hostile, "kind": "<b>llm</b>", "where": '"><iframe>'}
    data["labels"]["kind"] = "score"
    data["agreement"] = {
        "spearman": {"value": 0.8, "ci95": [0.6, 0.9]},
        "kendall_tau_b": {"value": 0.7, "ci95": [0.5, 0.85]},
        "alpha_interval": {"value": None, "ci95": None},
    }
    data["thresholds"] = {
        "best": None,
        "fail_share": {"share": 0.4, "value": 3.0, "ci95": [2.0, 4.0]},
    }
    data["probes"] = {"<u>probe</u>": {"items": 3, "shift": {"value": 0.1, "ci95": None}}}
    data["judge_errors"] = {
        "count": 1,
        "first": [{"id": "<q1>", "status": "error", "error": "<svg onload=x>"}],
    }
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "page.html"
    done = _report(str(path), "--out", str(out))
    assert done.returncode == 0, done.stderr
    html = out.read_text()
    for raw in ("<script", "<img", "<iframe", "<b>", "<u>", "<q1>", "<svg"):
        assert raw not in html, raw
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert "<td>Spearman&#39;s ρ</td>" in html
    assert "<td>Kendall&#39;s τ-b</td>" in html
    assert '<td class="num">n/a</td><td class="num">–</td>' in html  # alpha undefined
    assert '<td class="num">3.000</td><td class="num">[2.000, 4.000]</td>' in html
    assert "calibration-confusion" not in html  # no confusion matrix for scores
    assert "Items not judged (1)" in html
    # the terminal table shows the name as a repr, on one line
    table = _report(str(path))
    assert table.returncode == 0, table.stderr
    assert table.stdout.splitlines()[0].startswith(f"judge {hostile!r}")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not a readable calibration.json: not valid JSON"),
        ('{"schema": "rewardkit.calibration/9"}', "unknown schema 'rewardkit.calibration/9'"),
        ('{"judge": {}}', "unknown schema None"),
        ("BREAK_KAPPA", "agreement.kappa.value: must be a number or null"),
        ("BREAK_KIND", "labels.kind: must be one of pass_fail, score, preference"),
        ('{"schema": "rewardkit.calibration/1", "seed": NaN}', "holds NaN or Infinity"),
    ],
)
def test_a_malformed_calibration_exits_2_in_one_line(
    calibration: Path, tmp_path: Path, content: str, problem: str
) -> None:
    if content.startswith("BREAK_"):
        data = _load(calibration)
        if content == "BREAK_KAPPA":
            data["agreement"]["kappa"]["value"] = "high"
        else:
            data["labels"]["kind"] = "<vibes>"
        content = json.dumps(data)
    path = tmp_path / "calibration.json"
    path.write_text(content)
    done = _report(str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"rewardkit report: error: {path}: "), lines[0]
    assert problem in lines[0]


def test_a_schema_in_any_json_file_marks_a_calibration(calibration: Path, tmp_path: Path) -> None:
    path = tmp_path / "judge-check.json"
    path.write_text(calibration.read_text())
    assert _report(str(path)).returncode == 0
    path.write_text('{"schema": "rewardkit.calibration/2"}')
    done = _report(str(path))
    assert done.returncode == 2
    assert "unknown schema" in done.stderr


def test_run_options_are_refused(calibration: Path) -> None:
    done = _report(str(calibration), "--baseline", str(calibration))
    assert done.returncode == 2
    assert "--baseline reports on a run, not a calibration" in done.stderr


def test_a_runs_page_with_calibration(calibration: Path, results: Path, tmp_path: Path) -> None:
    out = tmp_path / "run.html"
    done = _report(str(results), "--calibration", str(calibration), "--out", str(out))
    assert done.returncode == 0, done.stderr
    html = out.read_text()
    assert '<section id="summary">' in html
    assert '<section id="calibration">' in html
    assert '<td class="num">0.871</td><td class="num">[0.556, 1.000]</td>' in html
    assert html.index('id="calibration"') < html.index('id="cases"')
    _no_requests(html)
    table = _report(str(results), "--calibration", str(calibration))
    assert table.returncode == 0, table.stderr
    assert table.stdout.rstrip().splitlines()[-len(table_lines(_load(calibration))) :] == (
        table_lines(_load(calibration))
    )
    data = json.loads(_report(str(results), "--calibration", str(calibration), "--json").stdout)
    assert data["calibration"] == _load(calibration)
    assert "reward" in data


def test_a_bad_calibration_for_a_run_exits_2(results: Path, tmp_path: Path) -> None:
    bad = tmp_path / "judge.json"
    bad.write_text('{"schema": "something/else"}')
    done = _report(str(results), "--calibration", str(bad))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"rewardkit report: error: {bad}: unknown schema 'something/else' "
        "(expected 'rewardkit.calibration/1')"
    ]
    done = _report(str(results), "--calibration", str(tmp_path / "nowhere.json"))
    assert done.returncode == 2
    assert f"{tmp_path / 'nowhere.json'}: no such file" in done.stderr
