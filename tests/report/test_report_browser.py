"""The report in a real headless Chromium, with no network: every section renders, the filter
script runs, and a screenshot is taken.

Chromium comes from the distribution (`apt-get install chromium`; `.ci/run` installs it). The
network is cut with `unshare --net` where the kernel allows it, and in any case every request
goes to a dead proxy; the page's CSP forbids fetching anything besides.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

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
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium; .ci/run does)"
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
        *(["--no-sandbox"] if os.geteuid() == 0 else []),
        *args,
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def page(job: Path, tmp_path: Path) -> Path:
    out = tmp_path / "report.html"
    build_report(job, pass_threshold=0.5, baseline=job).write_html(out)
    return out


def test_report_renders_offline(page: Path, tmp_path: Path) -> None:
    done = _chromium(tmp_path, "--dump-dom", page.as_uri())
    dom = done.stdout
    assert done.returncode == 0, done.stderr[-2000:]
    for section in (*SECTIONS, "comparison"):
        assert f'<section id="{section}">' in dom
    assert 'data-ready="1"' in dom  # the filter script ran
    assert "14 of 14 cases" in dom
    assert dom.count("<svg") == 3
    assert 'class="whisker"' in dom


def test_filter_from_the_address(page: Path, tmp_path: Path) -> None:
    dom = _chromium(tmp_path, "--dump-dom", page.as_uri() + "#q=refactor").stdout
    assert "3 of 14 cases" in dom


def test_screenshot(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    done = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,2400", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) > 20_000
