"""Hostile workspaces and criteria for a Harbor tests dir, shared by the tests and the benchmark.

Each attack is one criterion file `hostile.py` (the attack) next to `good.py`, whose two
criteria must keep scoring 1.0 whatever the attack does.
"""

from __future__ import annotations

import sqlite3
import struct
import zlib
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ATTACKS", "SECRET", "Attack", "build", "remove_tree"]

SECRET = "TOP-SECRET-4242"
"""Planted outside the workspace; it must never appear in any output."""

GOOD = """\
import rewardkit as rk

rk.file_exists("ok.txt")
rk.file_contains("ok.txt", "fine")
"""


@dataclass(frozen=True)
class Attack:
    name: str
    criteria: str
    """The text of `hostile.py`."""
    workspace: Callable[[Path], None] = lambda ws: None
    flags: tuple[str, ...] = ()
    statuses: frozenset[str] = frozenset({"error", "timeout"})
    """What the hostile criterion's outcome may be."""
    says: str = ""
    """A fragment its error must contain (e.g. the cap it hit)."""
    limit_s: float = 30.0
    max_rss_mb: float = 400.0
    extra: dict[str, str] = field(default_factory=dict)


def _png_bomb(path: Path, side: int = 12_000) -> None:
    """A small PNG (~0.4 MB) that decodes to side x side RGB pixels (432 MB at 12,000)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack("!I", len(data)) + body + struct.pack("!I", zlib.crc32(body))

    packer = zlib.compressobj(9)
    row = b"\x00" * (1 + 3 * side)
    idat = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    header = struct.pack("!IIBBBBB", side, side, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat)
    path.write_bytes(png + chunk(b"IEND", b""))


def _recursive_view(path: Path) -> None:
    with closing(sqlite3.connect(path)) as db:
        db.execute(
            "CREATE VIEW v AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
            "SELECT max(x) FROM c"
        )
        db.commit()


def _sparse(path: Path) -> None:
    with open(path, "wb") as handle:
        handle.truncate(1 << 30)


def _nested_dirs(ws: Path, depth: int = 2_000) -> None:
    import os

    here = os.getcwd()
    os.mkdir(ws / "d")
    os.chdir(ws / "d")  # relative mkdirs: the full path would pass PATH_MAX
    try:
        for _ in range(depth):
            os.mkdir("d")
            os.chdir("d")
    finally:
        os.chdir(here)


def _secret_links(ws: Path) -> None:
    (ws / "link.txt").symlink_to(ws.parent / "outside" / "secret.txt")
    (ws / "dir").symlink_to(ws.parent / "outside")


ATTACKS = [
    Attack(
        "hang",
        "from rewardkit import criterion\n\n@criterion\ndef spin(workspace):\n"
        "    while True:\n        pass\n",
        flags=("--criterion-timeout", "2"),
        statuses=frozenset({"timeout"}),
        says="2 s deadline",
    ),
    Attack(
        "os_exit",
        "import os\nfrom rewardkit import criterion\n\n@criterion\ndef leave(workspace):\n"
        "    os._exit(0)\n",
        says="exit code 0",
    ),
    Attack(
        "chdir",
        "import os\nfrom rewardkit import criterion\n\n@criterion\ndef move(workspace):\n"
        "    os.chdir('/')\n    return True\n",
        statuses=frozenset({"scored"}),
    ),
    Attack(
        "memory",
        "from rewardkit import criterion\n\n@criterion\ndef hog(workspace):\n"
        "    return len(bytearray(3 << 30)) > 0\n",
        flags=("--criterion-memory", "1024"),
        says="MemoryError",
    ),
    Attack(
        "command_output_2gib",
        "import rewardkit as rk\n\nrk.command_output_contains('head -c 2147483648 /dev/zero', 'x')\n",
        says="the cap",
        limit_s=60,
    ),
    Attack(
        "sparse_1gib",
        "import rewardkit as rk\n\nrk.file_contains('big.txt', 'x')\n",
        workspace=lambda ws: _sparse(ws / "big.txt"),
        says="64 MiB read cap",
    ),
    Attack(
        "png_bombs",
        "import rewardkit as rk\n\nrk.image_similarity('a.png', 'b.png')\n",
        workspace=lambda ws: [_png_bomb(ws / name) for name in ("a.png", "b.png")] and None,
        says="pixel cap",
    ),
    Attack(
        "sqlite_recursive_view",
        "import rewardkit as rk\n\nrk.sqlite_query_equals('db.sqlite', 'SELECT * FROM v', 1)\n",
        workspace=lambda ws: _recursive_view(ws / "db.sqlite"),
        flags=("--criterion-timeout", "3"),
    ),
    Attack(
        "deep_json",
        "import rewardkit as rk\n\nrk.json_key_equals('deep.json', 'a', 1)\n",
        workspace=lambda ws: (ws / "deep.json").write_text("[" * 100_000 + "]" * 100_000) and None,
        says="nested deeper than 100 levels",
    ),
    Attack(
        "nested_dirs_isolated",
        "import rewardkit as rk\n\nrk.command_succeeds('true', isolated=True)\n",
        workspace=_nested_dirs,
        statuses=frozenset({"scored", "error"}),
    ),
    Attack(
        "symlinks_out",
        "import rewardkit as rk\n\nrk.file_contains('link.txt', 'TOP')\n"
        "rk.file_contains('dir/secret.txt', 'TOP')\nrk.diff_ratio('link.txt', 'x')\n",
        workspace=_secret_links,
        statuses=frozenset({"scored"}),
    ),
]


def build(root: Path, attack: Attack) -> tuple[Path, Path]:
    """Write the tests dir and workspace of `attack` under `root`; return both."""
    tests, ws, outside = root / "tests", root / "ws", root / "outside"
    for directory in (tests, ws, outside):
        directory.mkdir(parents=True, exist_ok=True)
    (outside / "secret.txt").write_text(SECRET)
    (tests / "good.py").write_text(GOOD)
    (tests / "hostile.py").write_text(attack.criteria)
    (ws / "ok.txt").write_text("fine\n")
    attack.workspace(ws)
    return tests, ws


def remove_tree(root: Path) -> None:
    """`rm -rf`: `shutil.rmtree` recurses, and 2,000 nested directories overflow it."""
    import subprocess

    subprocess.run(["rm", "-rf", str(root)], check=True)
