"""The HTML page: self-contained, every section, the agent's words escaped."""

from __future__ import annotations

import json
import re
from pathlib import Path

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
    assert "Why 0.9:" in page
    assert "checks ×2 = 1" in page
    assert "(weighted-mean)" in page
