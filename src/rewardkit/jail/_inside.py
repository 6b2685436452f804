"""The inside of the jail: a fork server that runs each untrusted program in a cell of its own.

This file runs as a script (`python -I _inside.py FD CONFIG`), on the standard library
alone, so the grader's code and memory never enter the jail. Started once per grader
process, it builds the outer layer (user, mount, network, IPC and UTS namespaces whose
root holds only the read-only runtime), says which layers it reached, and then forks, per
request, a *keeper* that builds the cell and forks the program:

```
grader ──seqpacket──► zygote (outer namespaces) ──fork──► keeper (own PID + mount ns)
                                                            └─fork─► program (PID 1)
```

The program gets the limits, its own scratch directory (a size-capped tmpfs, or a fresh
directory when there are no namespaces), no capabilities, Landlock rules (read the runtime,
write the scratch, no TCP, no signals or abstract sockets out of its domain) and a seccomp
filter (no sockets, ptrace, mounts, namespaces, keyrings, BPF, io_uring). A Python program
runs in the forked, already started interpreter (no exec: that is what makes it fast);
anything else is exec'd. The keeper kills the cell at the deadline, on the grader's word,
or when the grader goes away, and reports the exit status.

Over 350 lines: it runs as a script on the standard library alone (`python -I _inside.py`), so
it cannot import a sibling module.
"""

from __future__ import annotations

import array
import atexit
import contextlib
import ctypes
import gc
import json
import os
import platform
import resource
import select
import shutil
import signal
import socket
import struct
import sys
import tempfile
import time
import traceback
import types
from typing import Any

_libc = ctypes.CDLL(None, use_errno=True)
_ARCH = platform.machine()
_NR = {  # syscall numbers that differ between architectures
    "x86_64": {"capset": 126, "pivot_root": 155},
    "aarch64": {"capset": 91, "pivot_root": 41},
}.get(_ARCH, {})

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
_ST_TO_MS = {1: MS_RDONLY, 2: MS_NOSUID, 4: MS_NODEV, 8: MS_NOEXEC, 1024: 1024, 2048: 2048,
             4096: 1 << 21}  # fmt: skip
"""statvfs flags → mount flags: a remount must keep the flags the kernel locked."""

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP = 1, 4, 24
PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT = 36, 38, 47


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def _syscall(name: str, *args: object) -> int:
    number = _NR.get(name)
    if number is None:
        raise OSError(38, f"{name}: no syscall number known for {_ARCH}")
    return _check(_libc.syscall(number, *args), name)


def _prctl(option: int, arg: int = 0) -> int:
    return _check(_libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0), f"prctl({option})")


# --- Landlock (ABI 1-7; the rights a kernel does not know are left out) ---------------

_LL_CREATE, _LL_ADD, _LL_RESTRICT = 444, 445, 446  # the same on every architecture
_LL_READ = 1 | 4 | 8  # EXECUTE, READ_FILE, READ_DIR
_LL_FILE = 1 | 2 | 4 | (1 << 14) | (1 << 15)  # what a rule on a file (not a dir) may grant


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, or 0 when Landlock is unavailable."""
    version: int = _libc.syscall(_LL_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(version, 0)


def _handled_fs(abi: int) -> int:
    return (1 << {1: 13, 2: 14, 3: 15, 4: 15}.get(abi, 16)) - 1


def landlock(abi: int, read: list[str], write: list[str]) -> None:
    """Confine this process: read (and run) `read`, read and write `write`, nothing else;
    no TCP bind or connect (ABI 4); no signals or abstract sockets out of the domain (6)."""
    handled = _handled_fs(abi)
    attr = struct.pack("=QQQ", handled, 3 if abi >= 4 else 0, 3 if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    buf = ctypes.create_string_buffer(attr, 24)
    ruleset = _check(_libc.syscall(_LL_CREATE, buf, ctypes.c_size_t(size), 0), "landlock")
    try:
        for paths, access in ((read, _LL_READ), (write, handled)):
            for path in paths:
                _landlock_rule(ruleset, path, access)
        _check(_libc.syscall(_LL_RESTRICT, ruleset, 0), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def _landlock_rule(ruleset: int, path: str, access: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a runtime path this machine lacks
    try:
        if not os.path.isdir(path):
            access &= _LL_FILE
        rule = ctypes.create_string_buffer(struct.pack("=Qi", access, fd), 12)
        _check(_libc.syscall(_LL_ADD, ruleset, 1, rule, 0), f"landlock rule {path}")
    finally:
        os.close(fd)


# --- seccomp (x86_64): refuse the syscalls a graded program has no business making -----

_DENY_X86_64 = (
    29, 30, 31, 41, 64, 65, 66, 67, 68, 69, 70, 71, 101, 103, 135, 153, 155, 159, 161, 163,
    164, 165, 166, 167, 168, 169, 172, 173, 175, 176, 179, 212, 220, 227, 240, 241, 242, 243,
    244, 245, 246, 248, 249, 250, 272, 298, 303, 304, 308, 310, 311, 313, 320, 321, 323, 425,
    426, 427, 428, 429, 430, 431, 432, 433, 438, 442,
)  # fmt: skip
"""shmget shmat shmctl socket semget semop semctl shmdt msgget msgsnd msgrcv msgctl ptrace
syslog personality vhangup pivot_root adjtimex chroot acct settimeofday mount umount2 swapon
swapoff reboot iopl ioperm init_module delete_module quotactl lookup_dcookie semtimedop
clock_settime mq_* kexec_load add_key request_key keyctl unshare perf_event_open
name_to_handle_at open_by_handle_at setns process_vm_readv process_vm_writev finit_module
kexec_file_load bpf userfaultfd io_uring_* open_tree move_mount fsopen fsconfig fsmount
fspick pidfd_getfd mount_setattr: System V and POSIX message IPC would be a channel between
samples, the rest a way out"""
_NEW_NAMESPACES = 0x7E020080  # every CLONE_NEW* flag


def _bpf(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def seccomp_filter() -> bytes:
    """The BPF program: wrong architecture kills; denied calls fail with EPERM; clone3
    fails with ENOSYS (so libc falls back to clone, whose flags are visible); a clone or
    ioctl(TIOCSTI) that would create namespaces or fake terminal input fails with EPERM."""
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    allow, eperm, enosys = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38
    prog = [_bpf(ld, 4), _bpf(jeq, 0xC000003E, 1, 0), _bpf(ret, 0x80000000), _bpf(ld, 0)]
    prog += [_bpf(jge, 0x40000000, 0, 1), _bpf(ret, eperm)]  # the x32 ABI
    for number in _DENY_X86_64:
        prog += [_bpf(jeq, number, 0, 1), _bpf(ret, eperm)]
    prog += [_bpf(jeq, 435, 0, 1), _bpf(ret, enosys)]
    prog += [_bpf(jeq, 16, 0, 3), _bpf(ld, 24), _bpf(jeq, 0x5412, 0, 5), _bpf(ret, eperm)]
    prog += [_bpf(jeq, 56, 0, 3), _bpf(ld, 16), _bpf(jset, _NEW_NAMESPACES, 0, 1)]
    prog += [_bpf(ret, eperm), _bpf(ret, allow)]
    return b"".join(prog)


def seccomp(program: bytes) -> None:
    """Install `program` (needs no_new_privs)."""
    filt = ctypes.create_string_buffer(program, len(program))
    fprog = struct.pack("=HxxxxxxQ", len(program) // 8, ctypes.addressof(filt))
    _check(_libc.syscall(317, 1, 0, ctypes.create_string_buffer(fprog, 16)), "seccomp")


# --- capabilities -----------------------------------------------------------------------


def drop_capabilities() -> None:
    """No capabilities now, none to regain (bounding set, ambient set, no_new_privs)."""
    for cap in range(64):
        if _libc.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0) < 0:
            break  # past the last capability, or no CAP_SETPCAP: nothing to drop
    _libc.prctl(PR_CAP_AMBIENT, ctypes.c_ulong(4), 0, 0, 0)  # clear all
    header = ctypes.create_string_buffer(struct.pack("=Ii", 0x20080522, 0), 8)
    _syscall("capset", header, ctypes.create_string_buffer(24))
    _prctl(PR_SET_NO_NEW_PRIVS, 1)


# --- the outer layer: namespaces and a root of read-only runtime ------------------------


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    args = [s.encode() if s is not None else None for s in (source, target, fstype)]
    _check(_libc.mount(*args, ctypes.c_ulong(flags), data.encode() or None), f"mount {target}")


def _bind(source: str, root: str, writable: bool = False) -> None:
    target = root + source
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()
    _mount(source, target, None, MS_BIND | MS_REC)
    locked = os.statvfs(source).f_flag
    flags = sum(ms for st, ms in _ST_TO_MS.items() if locked & st) | MS_NOSUID
    flags |= 0 if writable else MS_RDONLY
    _mount(None, target, None, MS_BIND | MS_REMOUNT | flags)


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


class Refused(OSError):
    """The kernel (or a seccomp profile) refuses unprivileged namespaces: nothing changed."""


def enter_namespaces(read: list[str], write: list[str], mountpoint: str) -> None:
    """Leave the host's user, mount, network, IPC and UTS namespaces and make `mountpoint`,
    holding `read` (read-only), `write` and a few devices, the root.

    Raises:
        Refused: no namespaces here; any other `OSError` leaves this process half-built.
    """
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    if _libc.unshare(flags) < 0:
        err = ctypes.get_errno()
        raise Refused(err, os.strerror(err))
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", mountpoint, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    for path in read:
        if os.path.lexists(path) and not os.path.islink(path):
            _bind(path, mountpoint)
        elif os.path.islink(path):  # e.g. /bin -> usr/bin on a merged-/usr system
            os.makedirs(os.path.dirname(mountpoint + path), exist_ok=True)
            os.symlink(os.readlink(path), mountpoint + path)
    for path in write:
        _bind(path, mountpoint, writable=True)
    for dev in ("null", "zero", "full", "random", "urandom"):
        _bind(f"/dev/{dev}", mountpoint, writable=True)
    os.makedirs(mountpoint + "/sandbox", exist_ok=True)  # each cell mounts its tmpfs here
    os.chdir(mountpoint)
    _syscall("pivot_root", b".", b".")
    _check(_libc.umount2(b".", 2), "umount old root")  # MNT_DETACH
    os.chdir("/")
    # read-only, so no cell can leave anything there for another (cells mount /sandbox)
    _mount(None, "/", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    socket.sethostname("jail")


# --- one cell: the keeper and its program -----------------------------------------------


def _cell_scratch(namespaces: bool, mb: int) -> str:
    if namespaces:
        _check(_libc.unshare(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC), "unshare cell")
        _mount("tmpfs", "/sandbox", "tmpfs", MS_NOSUID | MS_NODEV, f"size={mb}m,mode=0700")
        return "/sandbox"
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    return tempfile.mkdtemp(prefix="rewardkit-cell-")


_CTL = 64
"""Where the program's process keeps the keeper's channel while it builds its walls."""


def _setup_program(req: dict[str, Any], fds: list[int], scratch: str, abi: int) -> None:
    """In the program's process: stdio, limits, environment, then the walls."""
    os.setsid()
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.dup2(fds[0], _CTL, inheritable=False)
    for target, fd in enumerate(fds[1:]):  # stdin, stdout, stderr[, report]
        os.dup2(fd, target)
    os.closerange(len(fds) - 1, 64)
    os.closerange(65, 65536)
    for name, value in req["limits"].items():
        kind = getattr(resource, name)
        hard = resource.getrlimit(kind)[1]  # never above what the grader itself may use
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(kind, (value, value))
    os.environ.clear()
    os.environ.update(req["env"], HOME=scratch, TMPDIR=scratch)
    tempfile.tempdir = None  # the keeper's mkdtemp cached the host's: TMPDIR decides again
    for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)
    drop_capabilities()
    os.chdir(req.get("cwd") or scratch)
    if abi:
        write = [scratch, *req["write"], "/dev/null", "/dev/zero", "/dev/full"]
        landlock(abi, req["read"], write)
    if _ARCH == "x86_64" and req["seccomp"]:
        seccomp(seccomp_filter())


def _run_python(main: str) -> int:
    """Run `main` as `python -I main` would, in this (forked) interpreter."""
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = open(  # noqa: SIM115
        2, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1
    )
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr  # type: ignore[misc]
    sys.argv = [main]
    module = types.ModuleType("__main__")
    module.__file__ = os.path.abspath(main)
    sys.modules["__main__"] = module
    try:
        with open(main, "rb") as f:
            exec(compile(f.read(), main, "exec"), module.__dict__)
        code = 0
    except SystemExit as stop:
        code = _exit_code(stop.code)
    except BaseException as exc:  # the program's error, printed as Python would
        frames = exc.__traceback__
        traceback.print_exception(type(exc), exc, frames.tb_next if frames else None)
        code = 1
    if "threading" in sys.modules:
        sys.modules["threading"]._shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # a closed or broken pipe
            code = code or 120
    return code


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _program(req: dict[str, Any], fds: list[int], scratch: str, abi: int) -> None:
    """The program's process; never returns (nor unwinds into the keeper's code)."""
    code = 126
    try:
        _setup_program(req, fds, scratch, abi)
        if not req.get("python"):
            os.execve(req["argv"][0], req["argv"], dict(os.environ))
        os.close(_CTL)
        code = _run_python(req["python"])
    except BaseException as exc:  # the cell could not be built: say so
        message = json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode()
        for fd in (_CTL, fds[0], 2):
            try:
                os.write(fd, message)
                break
            except OSError:
                continue
    finally:
        os._exit(code)


def _write_files(scratch: str, files_fd: int) -> None:
    with os.fdopen(files_fd, "rb") as f:
        files = json.loads(f.read())
    for name, text in files.items():
        path = os.path.join(scratch, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)


def _children() -> list[int]:
    pids = []
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as f:
            pids += [int(p) for p in f.read().split()]
    return pids


def _sweep() -> None:
    """Kill and reap every process left behind (we are their subreaper)."""
    while True:
        for pid in _children():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _keeper(req: dict[str, Any], fds: list[int], namespaces: bool, abi: int) -> None:
    """Build the cell, start the program, end it; report `{"exit": status}`."""
    ctl = socket.socket(fileno=fds[0])
    scratch = None
    try:
        scratch = _cell_scratch(namespaces, req["scratch_mb"])
        _write_files(scratch, fds[-1])
        pid = os.fork()
        if pid == 0:
            _program(req, fds[:-1], scratch, abi)
        for fd in fds[1:-1]:
            os.close(fd)
        status = _watch(ctl, pid, namespaces, time.monotonic() + req["timeout"] + 1.0)
        if not namespaces:
            _sweep()
        ctl.send(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode())
    except Exception as exc:  # report it: never leave the grader waiting
        with contextlib.suppress(OSError):
            ctl.send(json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode())
    finally:
        if scratch and not namespaces:
            shutil.rmtree(scratch, ignore_errors=True)
        os._exit(0)


def _watch(ctl: socket.socket, pid: int, namespaces: bool, backstop: float) -> int:
    """Wait for the program to exit; kill it on the grader's word, its going, or the
    backstop deadline. The exit status."""
    pidfd = os.pidfd_open(pid)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    poller.register(ctl.fileno(), select.POLLIN)
    while True:
        left = backstop - time.monotonic()
        ready = [fd for fd, _ in poller.poll(max(left, 0) * 1000)]
        if pidfd in ready:
            break
        if left <= 0 or ctl.fileno() in ready:  # deadline, "kill", or the grader is gone
            _kill(pid, namespaces)
            break
    _, status = os.waitpid(pid, 0)
    os.close(pidfd)
    return status


def _kill(pid: int, namespaces: bool) -> None:
    """The cell's PID 1 dies and the kernel ends its namespace; else its session dies."""
    for kill, target in ((os.kill, pid), (os.killpg, pid)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(target, signal.SIGKILL)
        if namespaces:
            return


# --- the zygote ---------------------------------------------------------------------------


def _receive(sock: socket.socket) -> tuple[dict[str, Any], list[int]] | None:
    fds = array.array("i")
    msg, ancdata, _, _ = sock.recvmsg(1 << 20, socket.CMSG_SPACE(16 * fds.itemsize))
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
    if not msg:
        return None
    return json.loads(msg), list(fds)


def _outer(config: dict[str, Any]) -> tuple[bool, list[str]]:
    """Try the namespaces; whether they were reached, and why not when not."""
    if "namespaces" not in config["layers"]:
        return False, ["namespaces turned off"]
    try:
        enter_namespaces(config["read"], config["write"], config["mountpoint"])
    except Refused as exc:
        return False, [f"no user namespaces (unshare: {exc.strerror})"]
    return True, []


def serve(sock: socket.socket, config: dict[str, Any]) -> None:
    """Say which layers were reached, then answer requests until the grader hangs up."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    try:
        namespaces, notes = _outer(config)
    except OSError as exc:  # half-built: the grader starts another zygote, without them
        sock.send(json.dumps({"fatal": f"namespaces failed: {exc}"}).encode())
        return
    _prctl(PR_SET_DUMPABLE, 0)  # after the uid map: a non-dumpable process may not write it
    abi = landlock_abi() if "landlock" in config["layers"] else 0
    if not abi:
        notes.append("no Landlock" if "landlock" in config["layers"] else "Landlock turned off")
    use_seccomp = "seccomp" in config["layers"] and _ARCH == "x86_64"
    if not use_seccomp:
        notes.append(f"no seccomp filter for {_ARCH}" if _ARCH != "x86_64" else "seccomp off")
    reached = {"namespaces": namespaces, "landlock": abi > 0, "seccomp": use_seccomp}
    layers = [name for name, ok in reached.items() if ok]
    sock.send(json.dumps({"layers": layers, "landlock_abi": abi, "notes": notes}).encode())
    gc.freeze()  # what is here now, the collector never walks again: fewer pages copied per fork
    while True:
        got = _receive(sock)
        if got is None:
            return
        req, fds = got
        req["seccomp"] = use_seccomp
        if os.fork() == 0:
            sock.close()
            _keeper(req, fds, namespaces, abi)
        for fd in fds:
            os.close(fd)
        _reap()


def _reap() -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


if __name__ == "__main__":
    serve(socket.socket(fileno=int(sys.argv[1])), json.loads(sys.argv[2]))
