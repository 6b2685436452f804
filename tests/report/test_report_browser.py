"""The report in a real headless Chromium, with no network: every section renders, the page's
script runs without an error, its controls work (a case's view, sorting, the filter, a chart's
values on hover), and a screenshot is taken.

Chromium comes from the distribution (`apt-get install chromium`; `.ci/run` installs it). The
network is cut with `unshare --net` where the kernel allows it, and in any case every request
goes to a dead proxy; the page's CSP forbids fetching anything besides. The controls are driven
by a script added to a copy of the page: it sends the page's own handlers the clicks, typing
and hovering a person would, and writes what it then finds into the DOM that Chromium dumps.

`REPORT_SCREENSHOT=docs/report.png pytest tests/report/test_report_browser.py -k screenshot`
regenerates the screenshot of docs/report.md.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rewardkit.report import build_report

CHROMIUM = next(
    (
        found
        for name in ("chromium", "chromium-browser", "google-chrome")
        if (found := shutil.which(name))
    ),
    None,
)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (apt-get install chromium; .ci/run does): the browser "
    "test of the report page is skipped",
)
SECTIONS = ("summary", "problems", "charts", "judges", "passk", "diagnostics", "cases")


def _offline() -> list[str]:
    """`unshare --net` when this user may make a network namespace, else nothing."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    probe = subprocess.run([unshare, "--net", "true"], capture_output=True, check=False)
    return [unshare, "--net"] if probe.returncode == 0 else []


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    command = [
        *_offline(), CHROMIUM, "--headless", "--disable-gpu", "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
        "--enable-logging=stderr", "--v=0",
        *(["--no-sandbox"] if os.geteuid() == 0 else []),
        *args,
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def _with_script(page: Path, script: str) -> Path:
    """A copy of `page` that runs `script` once the page's own script has run."""
    copy = page.with_name(f"driven-{page.name}")
    text = page.read_text()
    copy.write_text(text.replace("</body>", f"<script>{script}</script></body>"))
    return copy


def _drive(page: Path, tmp_path: Path, script: str) -> dict[str, Any]:
    """Run `script` (JavaScript that returns a JSON-able value) in the page; its result."""
    wrapped = (
        '(function () { var out = document.createElement("pre"); out.id = "driven";'
        f"out.textContent = JSON.stringify((function () {{ {script} }})());"
        "document.body.appendChild(out); })();"
    )
    done = _chromium(tmp_path, "--dump-dom", _with_script(page, wrapped).as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Uncaught" not in done.stderr, done.stderr[-2000:]
    found = re.search(r'<pre id="driven">(.*?)</pre>', done.stdout, re.S)
    assert found is not None, done.stdout[-2000:]
    result: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return result


@pytest.fixture
def page(job: Path, tmp_path: Path) -> Path:
    out = tmp_path / "report.html"
    build_report(job, pass_threshold=0.5, baseline=job).write_html(out)
    return out


@pytest.fixture
def eval_page(eval_run: tuple[Path, Path], tmp_path: Path) -> Path:
    run, suite = eval_run
    out = tmp_path / "eval-report.html"
    build_report(run, suite=suite).write_html(out)
    return out


def test_report_renders_offline(page: Path, tmp_path: Path) -> None:
    done = _chromium(tmp_path, "--dump-dom", page.as_uri())
    dom = done.stdout
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Uncaught" not in done.stderr, done.stderr[-2000:]
    for section in (*SECTIONS, "comparison"):
        assert f'<section id="{section}">' in dom
    assert 'data-ready="1"' in dom  # the page's script ran
    assert "14 of 14 cases" in dom
    assert dom.count("<svg") == 3
    assert 'class="whisker"' in dom


def test_filter_from_the_address(page: Path, tmp_path: Path) -> None:
    dom = _chromium(tmp_path, "--dump-dom", page.as_uri() + "#q=refactor").stdout
    assert "3 of 14 cases" in dom


OPEN_A_CASE = """
var row = Array.from(document.querySelectorAll("tr.row"))
  .find(function (r) { return r.cells[0].textContent.trim() === "api-timeout"; });
var view = row.nextElementSibling, before = view.hidden;
row.click();
return {before: before, after: view.hidden, expanded: row.getAttribute("aria-expanded"),
        shown: view.getBoundingClientRect().height > 0, text: view.innerText};
"""


def test_a_case_view_shows_input_output_and_reasons(eval_page: Path, tmp_path: Path) -> None:
    found = _drive(eval_page, tmp_path, OPEN_A_CASE)
    assert (found["before"], found["after"], found["expanded"]) == (True, False, "true")
    assert found["shown"]
    text = found["text"]
    assert "Your API times out on every request over 1 MB since Monday." in text  # input
    assert "### reply.md" in text
    assert "Sorry about this." in text
    assert "filed as other, expected technical" in text  # a judge's reason
    assert "Why 0.375" in text


SORT = """
function column(index) {
  return Array.from(document.querySelectorAll("#case-table > tbody"))
    .map(function (body) { return body.rows[0].cells[index].textContent.trim(); });
}
var heads = document.querySelectorAll("#case-table > thead th");
heads[1].click();
var up = column(1), upSort = heads[1].getAttribute("aria-sort");
heads[1].click();
var down = column(1), downSort = heads[1].getAttribute("aria-sort");
heads[0].click();
return {up: up, down: down, upSort: upSort, downSort: downSort, names: column(0)};
"""


def test_clicking_a_header_sorts_the_rows(eval_page: Path, tmp_path: Path) -> None:
    found = _drive(eval_page, tmp_path, SORT)
    rewards = [float(v) for v in found["up"] if v != "–"]
    assert rewards == sorted(rewards)
    assert rewards[0] < rewards[-1]
    assert found["up"][-1] == "–"  # no reward: last either way
    descending = [float(v) for v in found["down"] if v != "–"]
    assert descending == sorted(rewards, reverse=True)
    assert found["down"][-1] == "–"
    assert (found["upSort"], found["downSort"]) == ("ascending", "descending")
    assert found["names"][:3] == ["api-timeout", "cancel-plan", "dark-mode"]


FILTER = """
var box = document.getElementById("filter-text");
box.value = "okta";
box.dispatchEvent(new Event("input", {bubbles: true}));
var shown = Array.from(document.querySelectorAll("#case-table > tbody"))
  .filter(function (body) { return getComputedStyle(body).display !== "none"; })
  .map(function (body) { return body.rows[0].cells[0].textContent.trim(); });
return {shown: shown, count: document.getElementById("shown-count").textContent};
"""


def test_the_filter_box_hides_rows(eval_page: Path, tmp_path: Path) -> None:
    found = _drive(eval_page, tmp_path, FILTER)
    assert found == {"shown": ["sso-saml"], "count": "1 of 10 cases"}


HOVER = """
var mark = document.querySelector("#chart-judges [data-tip] .hit");
var box = mark.getBoundingClientRect();
mark.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
mark.dispatchEvent(new MouseEvent("mousemove", {bubbles: true,
  clientX: box.left + 5, clientY: box.top + 5}));
var tip = document.getElementById("tip");
var shown = getComputedStyle(tip).display !== "none";
var text = tip.textContent;
document.querySelector("h1").dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
return {shown: shown, text: text, left: tip.style.left, after: getComputedStyle(tip).display};
"""


def test_hovering_a_chart_shows_its_value(eval_page: Path, tmp_path: Path) -> None:
    found = _drive(eval_page, tmp_path, HOVER)
    assert found["shown"]
    assert found["text"] == "category: 80.0% [49.0%, 94.3%]"
    assert found["left"].endswith("px")
    assert found["after"] == "none"  # hidden again once the pointer leaves


def test_screenshot(
    eval_run: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = os.environ.get("REPORT_SCREENSHOT")
    destination = Path(target).resolve() if target else None
    monkeypatch.chdir(tmp_path)  # the page shows the paths as given: keep them short
    page = tmp_path / "report.html"
    build_report(Path("run"), suite=Path("suite")).write_html(page)
    opened = _with_script(page, f"(function () {{ {OPEN_A_CASE} }})();")
    shot = tmp_path / "report.png"
    args = (f"--screenshot={shot}", "--hide-scrollbars", "--window-size=1280,1960")
    done = _chromium(tmp_path, *args, opened.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert 20_000 < len(data) < 300_000
    if destination is not None:
        shutil.copyfile(shot, destination)
