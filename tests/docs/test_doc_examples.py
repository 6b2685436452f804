"""Every code block of README.md and docs/**/*.md runs, parses, or says why it cannot.

Each page runs in its own temporary directory holding a copy of `examples/`, its blocks in
order, so a page reads like a session of a reader who has just installed rewardkit and stands
in the clone's root: whatever a block needs (a workspace, a rollouts file) is made by a block
the reader sees, never by a hidden one.

- a block whose info string has `title="path"` (or whose first line is a `# path` comment
  naming a file) is that file: it is written there (Python is compiled, YAML/TOML/JSON
  parsed) and not run;
- `python` blocks run in a fresh interpreter; a top-level expression followed by a comment
  holding a Python literal (`result.reward  # 1.0`) must equal that literal;
- `bash` blocks run with `bash -e` under a timeout and must exit 0;
- `yaml`, `toml`, `json` blocks parse; a YAML mapping with `judges` is an eval.yaml and
  must load with `load_suite` (files named by a title are loaded after the page's last block);
- `text` blocks (and blocks without a language) are illustrations: trees, grammars, messages.

An HTML comment right before a block changes that, and none may do what a reader must do:
`<!-- not-runnable: reason -->` skips it; `<!-- cwd: examples/qa-eval -->` checks a `yaml`,
`toml` or `json` block there (an abridged eval.yaml loads beside its judges), never a block a
reader runs or writes, whose paths say where it works; `<!-- output -->` on a
`text` block says each of its lines appears in the output of the block before it;
`<!-- server -->` on a `bash` block starts it in the background (`rewardkit serve`) for the
rest of the page, on a free port that replaces `8000` in the page's blocks, with `$TOKEN`
set in every block's environment.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BIN = Path(sys.executable).parent
TOKEN = "doc-example-token"
TIMEOUT = 60

_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+)(?P<lang>[\w-]*)(?P<info>.*)$")
_MARKER = re.compile(r"^\s*<!--\s*(?P<key>[\w-]+)(?::\s*(?P<value>.*?))?\s*-->\s*$")
_TITLE = re.compile(r'title="(?P<title>[^"]+)"')
_PATH_COMMENT = re.compile(r"^(?:#|//) (?P<path>[\w./-]+\.(?:py|toml|yaml|yml|json|sh))$")


@dataclass
class Block:
    page: Path
    line: int
    lang: str
    text: str
    title: str | None = None
    markers: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> Iterator[Block]:
    """The fenced code blocks of `page`, with the markers just above each."""
    lines = page.read_text().splitlines()
    markers: dict[str, str] = {}
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        marker = _MARKER.match(lines[i])
        if marker:
            markers[marker["key"]] = marker["value"] or ""
        elif fence:
            indent, close = len(fence["indent"]), fence["fence"]
            end = i + 1
            while lines[end].strip() != close:
                end += 1
            text = "\n".join(line[indent:] for line in lines[i + 1 : end]) + "\n"
            title = _TITLE.search(fence["info"])
            first = _PATH_COMMENT.match(text.splitlines()[0]) if text.strip() else None
            name = title["title"] if title else first["path"] if first else None
            yield Block(page, i + 1, fence["lang"] or "text", text, name, markers)
            markers, i = {}, end
        elif lines[i].strip():
            markers = {}
        i += 1


ALL = [block for page in PAGES for block in blocks(page)]


def test_every_block_is_run_or_marked() -> None:
    """Only languages and markers the runner knows; every skip says why."""
    known = {"python", "bash", "yaml", "toml", "json", "text"}
    assert [(b.where, b.lang) for b in ALL if b.lang not in known] == []
    keys = {"not-runnable", "cwd", "output", "server"}
    assert [(b.where, b.markers) for b in ALL if not set(b.markers) <= keys] == []
    assert [b.where for b in ALL if b.markers.get("not-runnable") == ""] == []


def test_no_block_hides_what_a_reader_must_do() -> None:
    """A reader copies the blocks they see, so no marker makes the files a block reads (the
    former `<!-- setup: ... -->`) or picks the directory of a block a reader runs or writes."""
    setup = [b.where for b in ALL if "setup" in b.markers]
    assert setup == [], "make these files in a block the reader sees"
    checked = {"yaml", "toml", "json"}
    hidden = [b.where for b in ALL if "cwd" in b.markers and (b.lang not in checked or b.title)]
    assert hidden == [], "say the directory in the block (paths from the clone's root)"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_page_examples(page: Path, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=_ignore)
    page_blocks = list(blocks(page))
    port = _free_port() if any("server" in b.markers for b in page_blocks) else None
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "TOKEN": TOKEN}
    servers: list[subprocess.Popen[bytes]] = []
    suites: list[Path] = []
    output = ""
    try:
        for block in page_blocks:
            if "not-runnable" in block.markers:
                continue
            if port is not None:
                block.text = block.text.replace("8000", str(port))
            cwd = tmp_path / block.markers.get("cwd", "")
            if "output" in block.markers:
                missing = [ln for ln in block.text.splitlines() if ln.strip() not in output]
                assert not missing, f"{block.where}: not in the output above: {missing}"
            elif block.title is not None:
                suites += _write_file(block, cwd)
            elif "server" in block.markers:
                servers.append(_start_server(block, cwd, env, port))
            else:
                output = _run_block(block, cwd, env)
        for suite in suites:
            _load_suite(suite, tmp_path, env)
    finally:
        for server in servers:
            os.killpg(server.pid, 9)
            server.wait()


def _run_block(block: Block, cwd: Path, env: dict[str, str]) -> str:
    if block.lang == "python":
        script = cwd / "_doc_block.py"
        script.write_text(_with_checks(block))
        return _run(block, [sys.executable, script.name], cwd, env)
    if block.lang == "bash":
        return _run(block, ["bash", "-e", "-o", "pipefail", "-c", block.text], cwd, env)
    data = _parse(block)
    if block.lang == "yaml" and isinstance(data, dict) and "judges" in data:
        suite = cwd / "_doc_block.eval.yaml"
        suite.write_text(block.text)
        _load_suite(suite, cwd, env)
    return ""


def _write_file(block: Block, cwd: Path) -> list[Path]:
    """Write a titled block; return it when it is an eval.yaml to load at the page's end."""
    assert block.title is not None
    path = cwd / block.title
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(block.text)
    if block.lang == "python":
        compile(block.text, block.where, "exec")
    data = _parse(block)
    return [path] if isinstance(data, dict) and "judges" in data else []


def _parse(block: Block) -> object:
    try:
        if block.lang == "yaml":
            return yaml.safe_load(block.text)
        if block.lang == "toml":
            return tomllib.loads(block.text)
        if block.lang == "json":
            return json.loads(block.text)
    except ValueError as exc:  # yaml.YAMLError, TOMLDecodeError, JSONDecodeError
        pytest.fail(f"{block.where}: {block.lang} does not parse: {exc}")
    return None


def _load_suite(path: Path, cwd: Path, env: dict[str, str]) -> None:
    """Load an eval.yaml in a fresh interpreter (it imports the suite's judge modules)."""
    code = "import sys; from rewardkit.evalyaml._suite import load_suite; load_suite(sys.argv[1])"
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], cwd=cwd, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, f"{path.name} does not load:\n{done.stderr}"


_CHECK = 'def _doc_check(v, e, w):\n    assert v == e, f"{w}: got {v!r}, expected {e!r}"\n'


def _with_checks(block: Block) -> str:
    """The block, with `expr  # literal` lines turned into assertions."""
    lines = block.text.splitlines()
    for node in ast.parse(block.text).body:
        if not isinstance(node, ast.Expr) or node.lineno != node.end_lineno:
            continue
        code, _, comment = lines[node.lineno - 1].partition("  # ")
        try:
            expected = ast.literal_eval(comment.strip())
        except (ValueError, SyntaxError):
            continue
        where = f"{block.where} (line {node.lineno} of the block)"
        lines[node.lineno - 1] = f"_doc_check(({code.strip()}), {expected!r}, {where!r})"
    return _CHECK + "\n".join(lines) + "\n"


def _run(block: Block, cmd: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{block.where}: exit {done.returncode}\n{output}"
    return output


def _start_server(
    block: Block, cwd: Path, env: dict[str, str], port: int | None
) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        ["bash", "-c", block.text], cwd=cwd, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return server
        except OSError:
            assert server.poll() is None, f"{block.where}: the server exited"
            time.sleep(0.1)
    os.killpg(server.pid, 9)
    pytest.fail(f"{block.where}: the server did not answer /healthz within 30 s")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ignore(directory: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "__pycache__"]
