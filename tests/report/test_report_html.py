"""The HTML page: self-contained, every section, the agent's words escaped, each case's view."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.report.conftest import HOSTILE, write_results

from rewardkit.report import build_report

SECTIONS = ("summary", "problems", "charts", "judges", "passk", "diagnostics", "cases")


def test_every_section_and_no_network(job: Path) -> None:
    page = build_report(job, pass_threshold=0.5).html()
    for section in SECTIONS:
        assert f'<section id="{section}">' in page
    assert '<section id="comparison">' not in page
    # nothing is fetched: no external src/href, no stylesheet link, a CSP that forbids it
    assert not re.search(r'(src|href)\s*=\s*"(https?:)?//', page)
    assert "<link" not in page
    assert "@import" not in page
    assert "default-src 'none'" in page
    assert page.count("<svg") == 3


def test_agent_words_are_escaped(job: Path) -> None:
    page = build_report(job).html()
    assert "<script>x</script>" not in page  # the 503 error text
    assert "&lt;script&gt;x&lt;/script&gt;" in page
    assert "<b>clear</b>" not in page
    assert "&lt;b&gt;clear&lt;/b&gt;" in page


def test_hostile_judge_name_in_charts_and_table(tmp_path: Path) -> None:
    name = '"><img src=x onerror=alert(1)>'
    verifier = tmp_path / "t__1" / "verifier"
    verifier.mkdir(parents=True)
    (verifier / "reward.json").write_text('{"reward": 1.0}')
    details = {
        "reward": {
            "score": 1.0,
            "kind": "programmatic",
            "criteria": [
                {"name": name, "value": 1.0, "raw": True, "weight": 1.0, "status": "scored"}
            ],
        }
    }
    (verifier / "reward-details.json").write_text(json.dumps(details))
    page = build_report(tmp_path).html(title="<i>t</i>")
    assert "<img" not in page
    assert "<i>t</i>" not in page


def test_composition_is_shown_per_case(job: Path) -> None:
    page = build_report(job).html()
    assert "<h3>Why 0.9</h3>" in page
    assert "checks ×2 = 1" in page
    assert "(weighted-mean)" in page


def _no_fetch(page: str) -> None:
    """No URL is loaded: the only one in the page is the SVG namespace, which is a name."""
    assert not re.search(r'(src|href|action|poster|data)\s*=\s*"?\s*(https?:)?//', page, re.I)
    assert "url(" not in page
    assert not re.search(r"https?://", page.replace('xmlns="http://www.w3.org/2000/svg"', ""))


def test_case_view_shows_input_output_and_reasons(eval_run: tuple[Path, Path]) -> None:
    run, suite = eval_run
    page = build_report(run, suite=suite).html()
    assert "<title>support-triage</title>" in page
    assert "<h1>support-triage</h1>" in page
    assert "ticket: &#39;My order #4411 arrived two weeks late. Can I get a refund?&#39;" in page
    assert "customer: c-0" in page
    assert "### reply.md" in page
    assert "Sorry about this. For &#39;My order #4411" in page
    assert "filed as other, expected technical" in page  # a judge's reason
    assert "JudgeUnavailable: judge model: 503 Service Unavailable" in page
    assert page.count('<tr class="view" hidden>') == 10
    _no_fetch(page)


def test_hostile_output_is_escaped(eval_run: tuple[Path, Path], job: Path) -> None:
    run, suite = eval_run
    for page in (build_report(run, suite=suite).html(), build_report(job).html()):
        assert HOSTILE not in page
        assert "<img" not in page
        assert "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in page
        assert page.count("</script>") == 1  # the page's own script, once


def test_long_output_is_capped_with_a_mark(eval_run: tuple[Path, Path], job: Path) -> None:
    run, suite = eval_run
    page = build_report(run, suite=suite).html()
    assert "- check SAML setting 399 of the Okta app" not in page
    assert re.search(r'<div class="more">… [\d,]+ more characters</div>', page)
    cut = build_report(run, suite=suite).run.cases[-1].output
    assert cut is not None
    assert len(cut.text) == 4000
    assert f"… {cut.more:,} more characters" in page
    page = build_report(job).html()
    assert "step 999: ran the tests again" not in page
    assert "more characters" in page


def test_missing_texts_are_said(eval_run: tuple[Path, Path], job: Path, results: Path) -> None:
    run, _ = eval_run
    page = build_report(run).html()
    assert "<title>run</title>" in page  # the run's directory: no eval.yaml to name it
    assert "Not shown: summary.json holds none; pass --eval" in page
    page = build_report(results).html()
    assert "<title>results.jsonl</title>" in page
    assert "Not shown: a results file holds none; pass --rollouts" in page
    page = build_report(job).html()
    assert "<title>demo-job</title>" in page
    assert "Not shown: a Harbor job directory holds no task instruction." in page
    assert "$ claude -p &#39;Do the task: fix-bug&#39;" in page
    assert "Not shown: no agent log (agent/*.txt) in the trial directory." in page  # legacy__x1


def test_rollouts_give_input_and_output(tmp_path: Path) -> None:
    results = write_results(tmp_path / "results.jsonl")
    rollouts = tmp_path / "rollouts.jsonl"
    lines = [{"id": "g0-s0", "prompt": "What is 2+2?", "completion": HOSTILE}]
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Name a prime."}]},
        {"role": "assistant", "content": "7"},
    ]
    lines.append({"id": "g0-s1", "messages": messages})
    rollouts.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    report = build_report(results, rollouts=rollouts)
    first, second = report.run.cases[:2]
    assert first.input is not None
    assert first.input.text == "What is 2+2?"
    assert first.output is not None
    assert first.output.text == HOSTILE
    assert second.input is not None
    assert second.input.text == "system: Be brief.\n\nuser: Name a prime."
    assert second.output is not None
    assert second.output.text == "7"
    page = report.html()
    assert HOSTILE not in page
    assert f"Not shown: no prompt for this id in {rollouts}." in page  # g0-s2 and on


def test_continuous_colours_and_sortable_columns(eval_run: tuple[Path, Path]) -> None:
    run, suite = eval_run
    page = build_report(run, suite=suite).html()
    # reward 0.375 → hue 45 (between red 0 and yellow 60); helpful 2 on [1, 5] → 0.25 → 30
    assert 'data-v="0.375" style="background: hsl(45, 70%, 78%)"' in page
    assert 'data-v="2.0" style="background: hsl(30, 70%, 78%)"' in page
    headers = re.findall(r'<th[^>]*data-sort="(\w+)"[^>]*>([^<]*)</th>', page)
    assert headers == [
        ("text", "case"),
        ("num", "reward"),
        ("num", "category"),
        ("num", "polite"),
        ("num", "helpful"),
    ]
    assert 'id="filter-text"' in page


def test_charts_fit_the_page_and_carry_their_values(job: Path) -> None:
    page = build_report(job, pass_threshold=0.5).html()
    svgs = re.findall(r"<svg[^>]*>", page)
    assert len(svgs) == 3
    assert all("viewBox=" in svg and "width=" not in svg for svg in svgs)
    assert 'data-tip="checks/tests_pass: 66.7% [39.1%, 86.2%]"' in page
    assert 'data-tip="quality/readability: 1 error"' in page
    assert re.search(r'data-tip="reward in \[0\.\d, 0\.\d\): \d+ cases"', page)


def test_a_huge_agent_log_is_read_only_as_far_as_the_page_shows(job: Path) -> None:
    """A trial's agent may leave a log of many MiB; the page shows 4,000 characters, so only
    about that much is read, and the mark still counts everything left out."""
    trial = next(p for p in sorted(job.iterdir()) if (p / "agent").is_dir())
    huge = "x" * (12 << 20)
    for log in (trial / "agent").glob("*.txt"):
        log.write_text(huge)
    report = build_report(job)
    case = next(c for c in report.run.cases if c.output is not None and trial.name in c.id)
    assert case.output is not None
    assert len(case.output.text) == 4000
    assert case.output.more >= (12 << 20) - 4000
