"""The jail: each layer alone, the levels it reports, its limits, and its failure modes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from tests.hostile._measure import running

from rewardkit.jail import ExecutionResult, Jail, JailError

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the jail is Linux's")

LAYERS = {
    "all": ["namespaces", "landlock", "seccomp"],
    "landlock": ["landlock", "seccomp"],
    "namespaces": ["namespaces", "seccomp"],
}


@pytest.fixture(scope="module", params=list(LAYERS))
def jail(request: pytest.FixtureRequest) -> Jail:
    kept = Jail(layers=LAYERS[request.param])
    yield kept
    kept.close()


def py(jail: Jail, source: str, **kwargs: object) -> ExecutionResult:
    return jail.run(python="main.py", files={"main.py": source}, **kwargs)  # type: ignore[arg-type]


def test_python_runs_as_python_minus_I_would(jail: Jail) -> None:
    run = py(jail, "import sys\nprint(__name__, sys.argv, sys.flags.isolated)\nsys.exit(3)")
    assert (run.returncode, run.stdout) == (3, "__main__ ['main.py'] 1\n")
    run = py(jail, "raise ValueError('boom')")
    assert run.returncode == 1
    assert run.stderr.startswith('Traceback (most recent call last):\n  File "main.py"')
    assert "ValueError: boom" in run.stderr


def test_the_layers_are_reported(jail: Jail) -> None:
    run = py(jail, "pass")
    assert set(run.layers) in [set(layers) for layers in LAYERS.values()]
    assert run.isolation == ("namespaces" if "namespaces" in run.layers else "landlock")
    assert run.network_isolated


def test_stdin_files_and_scratch(jail: Jail) -> None:
    source = (
        "import os, tempfile\n"
        "print(input()[::-1], open('data/x.txt').read())\n"
        "open('out.txt', 'w').write('ok')\n"
        "print(tempfile.gettempdir() == os.getcwd() == os.environ['HOME'])"
    )
    run = jail.run(python="main.py", files={"main.py": source, "data/x.txt": "X"}, stdin="abc\n")
    assert run.stdout == "cba X\nTrue\n", run.stderr


@pytest.mark.parametrize(
    "path", ["/etc/passwd", "/etc/shadow", "/proc/self/status", str(Path.home()), "/", "/tmp"]
)
def test_nothing_outside_the_runtime_is_readable(jail: Jail, path: str) -> None:
    """Refused, or (with namespaces alone) a directory holding only the way to the runtime."""
    source = (
        f"import os\np = {path!r}\nprint(os.listdir(p) if os.path.isdir(p) else open(p).read())"
    )
    run = py(jail, source)
    if run.returncode == 0:
        assert "landlock" not in run.layers
        on_the_way = {part for p in jail.read for part in Path(p).parts}
        assert set(eval(run.stdout)) <= on_the_way | {"dev", "sandbox"}, (
            run.stdout
        )  # a listing the program printed
    else:
        assert "Error" in run.stderr


def test_the_runtime_is_read_only(jail: Jail) -> None:
    import sysconfig

    site = sysconfig.get_path("purelib")
    run = py(jail, f"open({site!r} + '/rk-jail-test.pth', 'w')")
    assert run.returncode == 1
    assert not Path(site, "rk-jail-test.pth").exists()


def test_one_cell_cannot_leave_anything_for_the_next(jail: Jail) -> None:
    plant = (
        "import os\nfor d in ('/', '/tmp', '/dev/shm', '/sandbox', os.getcwd(), '..'):\n"
        "    try: open(os.path.join(d, 'planted'), 'w').write('x')\n    except OSError: pass"
    )
    look = (
        "import os\nfound = []\nfor d in ('/', '/tmp', '/dev/shm', '/sandbox', os.getcwd(), '..'):\n"
        "    if os.path.exists(os.path.join(d, 'planted')): found.append(d)\nprint(found)"
    )
    py(jail, plant)
    assert py(jail, look).stdout == "[]\n"


def test_no_shared_memory_between_cells(jail: Jail) -> None:
    """System V IPC outlives a process: it would be a channel from one sample to the next."""
    shm = (
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "print(libc.shmget(0x52574B31, 4096, {flags}), ctypes.get_errno())"
    )
    created = py(jail, shm.format(flags="0o1666"))  # IPC_CREAT | 0666
    found = py(jail, shm.format(flags="0o666"))
    assert created.stdout.split()[0] == "-1", created
    assert found.stdout.split()[0] == "-1", found


def test_the_scratch_directory_is_capped(jail: Jail) -> None:
    source = (
        "import os\nwritten = 0\ntry:\n"
        "    for i in range(64):\n"
        "        with open(f'f{i}', 'wb') as f: f.write(b'x' * (8 << 20))\n"
        "        written += 8\nexcept OSError as e: print(type(e).__name__)\nprint(written)"
    )
    run = py(jail, source, scratch_mb=32, memory_mb=None, timeout=20)
    if "namespaces" not in run.layers:
        pytest.skip("without namespaces the scratch directory is a plain directory (no cap)")
    assert int(run.stdout.split()[-1]) < 40, run


def test_limits(jail: Jail) -> None:
    start = time.monotonic()
    run = py(jail, "while True: pass", timeout=1)
    assert run.timed_out
    assert run.returncode is None
    assert time.monotonic() - start < 6  # ≈1.1 s; a generous bound for a loaded machine
    run = py(jail, "x = bytearray(500 << 20)", memory_mb=100)
    assert run.returncode == 1
    assert "MemoryError" in run.stderr
    run = py(
        jail, "import sys\nwhile True: sys.stdout.write('x' * 65536)", max_output_bytes=100_000
    )
    assert run.output_truncated
    assert len(run.stdout) <= 100_000


def test_nothing_outlives_the_cell(jail: Jail) -> None:
    marker = f"62.{os.getpid()}"
    source = (
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n"
        f"    if os.fork() == 0: os.execv('/bin/sleep', ['sleep', '{marker}'])\n"
        "    os._exit(0)\ntime.sleep(0.3)"
    )
    py(jail, source)
    deadline = time.monotonic() + 5
    while running(marker):
        assert time.monotonic() < deadline, f"{running(marker)} survived the cell"
        time.sleep(0.05)


def test_the_environment_is_rebuilt(jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    run = py(jail, "import os\nprint(sorted(os.environ))")
    assert "OPENAI_API_KEY" not in run.stdout
    assert "sk-secret" not in run.stdout


def test_programs_other_than_python(jail: Jail) -> None:
    run = jail.run(["/bin/sh", "-c", 'echo $0; test "$HOME" = "$PWD"; exit 4'], files={})
    assert (run.returncode, run.stdout) == (4, "/bin/sh\n"), run.stderr
    node = shutil.which("node")
    if node:  # V8 reserves far more address space than it uses: no RLIMIT_AS for it
        run = jail.run([node, "-e", "console.log(6 * 7)"], files={}, memory_mb=None)
        assert (run.returncode, run.stdout) == (0, "42\n"), run.stderr


def test_a_writable_directory_and_a_working_directory(tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("hi")
    with_ws = Jail(write=[str(tmp_path)])
    try:
        run = with_ws.run(
            ["/bin/sh", "-c", "cat in.txt > out.txt; pwd"], files={}, cwd=str(tmp_path)
        )
    finally:
        with_ws.close()
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "out.txt").read_text() == "hi"


def test_concurrent_runs_from_threads(jail: Jail) -> None:
    results: list[str] = []

    def one(i: int) -> None:
        results.append(py(jail, f"print({i} * 2)").stdout)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results, key=lambda r: int(r)) == [f"{i * 2}\n" for i in range(16)]


def test_a_dead_zygote_is_replaced() -> None:
    jail = Jail()
    try:
        assert jail.run(python="m.py", files={"m.py": "print(1)"}).stdout == "1\n"
        assert jail._proc is not None
        jail._proc.kill()
        jail._proc.wait()
        assert jail.run(python="m.py", files={"m.py": "print(2)"}).stdout == "2\n"
    finally:
        jail.close()


def test_a_forked_grader_starts_its_own_zygote() -> None:
    from rewardkit.jail import run_python

    assert run_python("m.py", files={"m.py": "print(1)"}).stdout == "1\n"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        try:
            out = run_python("m.py", files={"m.py": "print(2)"}).stdout
        except BaseException as exc:  # the child reports everything
            out = repr(exc)
        os.write(write, out.encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read) as f:
        assert f.read() == "2\n"


def test_a_required_level_that_is_not_reached_is_an_error() -> None:
    weak = Jail(layers=["seccomp"], min_isolation="landlock")
    with pytest.raises(
        JailError, match=r"reached isolation 'limits'.*below the required 'landlock'"
    ):
        weak.run(python="m.py", files={"m.py": "pass"})


def test_a_bad_required_level_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REWARDKIT_MIN_ISOLATION", "strong")
    with pytest.raises(JailError, match="REWARDKIT_MIN_ISOLATION must be one of limits, landlock"):
        Jail().run(python="m.py", files={"m.py": "pass"})


def test_a_missing_layer_is_said_in_one_line(capfd: pytest.CaptureFixture[str]) -> None:
    weak = Jail(layers=["landlock"])  # a combination no other test uses: said once a process
    try:
        run = weak.run(python="m.py", files={"m.py": "pass"})
    finally:
        weak.close()
    assert (run.isolation, run.layers) == ("limits", ("landlock",))
    assert capfd.readouterr().err == (
        "rewardkit: warning: jail: namespaces turned off; seccomp off; programs run under "
        "landlock\n"
    )


@pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root and setpriv"
)
def test_the_jail_holds_for_an_unprivileged_user(tmp_path: Path) -> None:
    """The kernel's unprivileged paths (user namespaces without any capability): a copy of
    the jail run by the system's Python as `nobody`."""
    system_python = "/usr/bin/python3"
    if not os.access(system_python, os.X_OK):
        pytest.skip("no system Python to run as nobody")
    jail_src = Path(__file__).parents[2] / "src" / "rewardkit" / "jail"
    package = tmp_path / "pkg" / "rewardkit"
    (package / "jail").mkdir(parents=True)
    (package / "core").mkdir()
    (package / "__init__.py").write_text("")
    (package / "core" / "__init__.py").write_text("")
    (package / "core" / "_errors.py").write_text("class RewardKitError(Exception):\n    pass\n")
    for name in ("__init__.py", "_jail.py", "_inside.py"):
        shutil.copy(jail_src / name, package / "jail" / name)
    script = (
        "from rewardkit.jail import Jail\n"
        "import os\n"
        "for layers in (['namespaces', 'landlock', 'seccomp'], ['landlock', 'seccomp']):\n"
        "    j = Jail(layers=layers)\n"
        "    r = j.run(python='m.py', files={'m.py': 'import os\\n"
        'print(os.getuid())\\ntry: open("/etc/passwd").read(); print("READ")\\n'
        'except OSError: print("denied")\'})\n'
        "    print(r.layers, r.stdout.split(), r.stderr[-200:])\n"
        "    j.close()\n"
        "import threading, time\n"  # a zygote started by a thread that then ends lives on
        "j = Jail()\n"
        "t = threading.Thread(target=lambda: j.run(python='m.py', files={'m.py': ''}))\n"
        "t.start(); t.join(); time.sleep(0.2)\n"
        "alive = j._proc.poll() is None\n"
        "print('after its thread', alive, j.run(python='m.py', files={'m.py': 'print(7)'}).stdout)\n"
        "j.close()\n"
    )
    public = Path(tempfile.mkdtemp())  # pytest's tmp_path is not reachable by nobody
    shutil.copytree(tmp_path / "pkg", public / "pkg")
    public.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(public / "pkg"), "LANG": "C.UTF-8"}
    run = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", system_python, "-c", script],
        capture_output=True, text=True, env=env, timeout=60, cwd="/",
    )  # fmt: skip
    shutil.rmtree(public)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("('namespaces', 'landlock', 'seccomp') ['65534', 'denied']"), (
        run.stdout
    )
    assert lines[1].startswith("('landlock', 'seccomp') ['65534', 'denied']"), run.stdout
    assert lines[2] == "after its thread True 7", run.stdout


REFUSE = """
import ctypes, json, struct, sys
from rewardkit.jail import Jail, _inside

ld, jeq, ret = 0x20, 0x15, 0x06
prog = [_inside._bpf(ld, 0)]
for number, errno in json.loads(sys.argv[1]):
    prog += [_inside._bpf(jeq, number, 0, 1), _inside._bpf(ret, 0x00050000 | errno)]
prog.append(_inside._bpf(ret, 0x7FFF0000))
ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)  # no_new_privs, as a container runtime sets it
_inside.seccomp(b"".join(prog))
jail = Jail()
run = jail.run(python="m.py", files={"m.py": "print(open('/etc/hostname').read())"})
print(json.dumps([run.isolation, run.layers, jail.notes, run.returncode]))
jail.close()
"""


@pytest.mark.parametrize(
    ("refused", "isolation", "layers", "note"),
    [
        (
            [(272, 1)],
            "landlock",
            ["landlock", "seccomp"],
            "no user namespaces (unshare: Operation not permitted)",
        ),
        ([(444, 38)], "namespaces", ["namespaces", "seccomp"], "no Landlock"),
    ],
    ids=["as Docker's default profile refuses unshare", "as a kernel without Landlock"],
)
def test_a_refused_layer_is_left_out_and_said(
    refused: list[tuple[int, int]], isolation: str, layers: list[str], note: str
) -> None:
    """Where the environment refuses a layer (not a setting: the kernel says no), the jail
    builds the others, reports the level reached, and the program is still confined."""
    if os.uname().machine != "x86_64":
        pytest.skip("the filter below uses x86_64 syscall numbers")
    run = subprocess.run(
        [sys.executable, "-c", REFUSE, json.dumps(refused)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got[:3] == [isolation, layers, [note]], got
    assert got[3] == 1  # /etc/hostname is not the program's to read
    assert f"rewardkit: warning: jail: {note}" in run.stderr or isolation == "namespaces"


def test_a_zygote_started_by_a_thread_that_ended_keeps_running() -> None:
    """Linux's parent-death signal follows the *thread* that started a child: a zygote
    started from a pool thread that then ends must not die with it (it is started from a
    thread that lasts as long as the process)."""
    jail = Jail()
    try:
        outs: list[str] = []
        first = threading.Thread(target=lambda: outs.append(py(jail, "print(1)").stdout))
        first.start()
        first.join()  # the thread that started the zygote is gone
        time.sleep(0.2)
        assert jail._proc is not None
        assert jail._proc.poll() is None  # the zygote lives on
        later = [py(jail, f"print({i})") for i in range(3)]
        assert outs + [r.stdout for r in later] == ["1\n", "0\n", "1\n", "2\n"]
        assert all(r.returncode == 0 for r in later)
    finally:
        jail.close()
