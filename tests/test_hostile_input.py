"""What a transcript, a file system or a client may do without stopping the daemon or ``omkd
scan`` (issue 12): each case is made by hand, first reproduced against the real daemon or CLI.

- one valid line nesting hundreds of levels (a ``tool_use`` input that never gets its result);
- symlink loops, FIFOs and devices named ``*.jsonl`` below a root, an unreadable directory;
- bad query parameters, and unknown record types with huge names.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import urllib.error
import urllib.request
from pathlib import Path
from typing import Final

import pytest

from omkd.daemon.http import MAX_CONNECTIONS, ConnectionGuard
from omkd.testing import DaemonProcess
from tests import claude_lines as cl
from tests.live_helpers import family, omkd, session_bytes, wait_lines

PLAN: Final = [("deploy", "miss"), ("deploy", "hit"), ("lint", "miss")]
DEPTH: Final = 600
"""Levels of nesting: deeper than pickle, repr and orjson.dumps go; orjson.loads reads 1,024."""


def deep_tool_use() -> bytes:
    """An assistant ``tool_use`` whose input nests ``DEPTH`` levels; its result never comes."""
    record = cl.tool_use("toolu_deep", "Task", {"prompt": "PLACEHOLDER"}, "msg_deep")
    text = json.dumps(record, separators=(",", ":"))
    return text.replace('"PLACEHOLDER"', '{"a":' * DEPTH + "1" + "}" * DEPTH).encode() + b"\n"


def write(path: Path, data: bytes) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return data.count(b"\n")


def errors(daemon: DaemonProcess) -> dict[str, float]:
    return family(daemon.metrics(), "omkd_errors_total")


def test_a_deeply_nested_line_neither_crashes_nor_crash_loops(tmp_path: Path) -> None:
    """The pending call is checkpointed and restored; SIGTERM exits 0, and so does every restart."""
    root = tmp_path / "projects"
    lines = write(root / "p" / f"{cl.SESSION}.jsonl", session_bytes(PLAN) + deep_tool_use())
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.start()
        wait_lines(daemon, lines)
        daemon.wait_caught_up()
        assert errors(daemon) == {}
        assert daemon.stop() == 0
        for _ in range(2):
            daemon.start()
            wait_lines(daemon, lines)
            assert errors(daemon) == {}
            assert daemon.stop() == 0


def test_scan_reads_a_deeply_nested_line(tmp_path: Path) -> None:
    """``omkd scan`` over the same file: exit 0 and every segment counted."""
    path = tmp_path / "p" / f"{cl.SESSION}.jsonl"
    write(path, session_bytes(PLAN) + deep_tool_use())
    result = omkd("scan", tmp_path, "--json")
    assert (result.returncode, json.loads(result.stdout)["overall"]["segments"]) == (0, 3), result.stderr


def hostile_tree(root: Path) -> None:
    """A symlink loop, a FIFO, a symlink to /dev/zero and a dangling link, all named ``*.jsonl``."""
    odd = root / "odd"
    odd.mkdir(parents=True)
    os.symlink(odd / "b.jsonl", odd / "a.jsonl")
    os.symlink(odd / "a.jsonl", odd / "b.jsonl")
    os.mkfifo(odd / "fifo.jsonl")
    os.symlink("/dev/zero", odd / "zero.jsonl")
    os.symlink(odd / "nowhere.jsonl", odd / "dangling.jsonl")


def test_the_daemon_survives_symlink_loops_fifos_and_devices(tmp_path: Path) -> None:
    """Below a root: the daemon starts, reads the real transcript, counts and logs what it skipped."""
    root = tmp_path / "projects"
    hostile_tree(root)
    lines = write(root / "p" / f"{cl.SESSION}.jsonl", session_bytes(PLAN))
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.start()
        wait_lines(daemon, lines)
        assert errors(daemon).get('omkd_errors_total{cause="discovery.ELOOP"}', 0) >= 1
        assert daemon.get("/healthz", raw=True) == b"ok\n"
        assert daemon.stop() == 0


def test_scan_skips_special_files_with_a_warning(tmp_path: Path) -> None:
    """``omkd scan`` neither hangs on a FIFO or /dev/zero nor prints a traceback: it skips them,
    says which and why, and counts them in ``pipeline.skipped_files``."""
    hostile_tree(tmp_path)
    write(tmp_path / "p" / f"{cl.SESSION}.jsonl", session_bytes(PLAN))
    result = omkd("scan", tmp_path, "--json", timeout=30)
    document = json.loads(result.stdout)
    assert (result.returncode, document["overall"]["segments"]) == (0, 3), result.stderr
    assert document["pipeline"]["skipped_files"] == {"not_regular": 2, "symlink_loop": 2, "dangling": 1}
    assert "Traceback" not in result.stderr
    assert "fifo.jsonl" in result.stderr


def test_scan_of_a_fifo_named_on_the_command_line_is_bad_input(tmp_path: Path) -> None:
    """A FIFO given as PATH: exit 2 naming it, without blocking on open()."""
    fifo = tmp_path / "given.jsonl"
    os.mkfifo(fifo)
    result = omkd("scan", fifo, timeout=30)
    assert (result.returncode, "given.jsonl" in result.stderr, "Traceback" in result.stderr) == (2, True, False)


def status_of(daemon: DaemonProcess, path: str) -> int:
    try:
        with urllib.request.urlopen(daemon.url + path, timeout=10) as response:  # noqa: S310 (loopback)
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.parametrize(
    "query",
    ["limit=%C2%B2", "limit=%D9%A3", "limit=99999999999999999999", "since=99999999999999999d", "since=1e400s"],
)
def test_bad_gaps_parameters_get_400_not_500(tmp_path: Path, query: str) -> None:
    """Superscript and Arabic-Indic digits, huge limits and overflowing durations are a 400."""
    root = tmp_path / "projects"
    write(root / "p" / f"{cl.SESSION}.jsonl", session_bytes(PLAN))
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.start()
        assert status_of(daemon, f"/api/v1/gaps?{query}") == 400
        assert daemon.stop() == 0


def test_huge_unknown_record_types_become_short_bounded_labels(tmp_path: Path) -> None:
    """A 100 KB record type name is counted under a label of at most 64 characters, and no more
    than a bounded number of distinct unknown types get a label of their own."""
    root = tmp_path / "projects"
    odd = [cl.line({"type": f"t{n}-" + "x" * 100_000, "timestamp": cl.TS}) + b"\n" for n in range(3)]
    many = [cl.line({"type": f"kind-{n}", "timestamp": cl.TS}) + b"\n" for n in range(200)]
    lines = write(root / "p" / f"{cl.SESSION}.jsonl", session_bytes(PLAN) + b"".join(odd + many))
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.start()
        wait_lines(daemon, lines)
        unknown = family(daemon.metrics(), "omkd_unknown_records_total")
        assert daemon.stop() == 0
    assert max(len(key) for key in unknown) < 120
    assert sum(unknown.values()) == 203
    assert len(unknown) <= 65


IDLE_CONNECTIONS: Final = 1100


def open_descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_1100_half_sent_requests_neither_stop_nor_wedge_the_daemon(tmp_path: Path) -> None:
    """1,100 connections that each send half a request and wait: the daemon keeps at most its cap
    of connections open (closing those nearest their deadline), /healthz answers, and new lines
    are read while the connections are still held."""
    root = tmp_path / "projects"
    path = root / "p" / f"{cl.SESSION}.jsonl"
    first = write(path, session_bytes(PLAN))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.start()
        wait_lines(daemon, first)
        assert daemon.process is not None
        pid = daemon.process.pid
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, IDLE_CONNECTIONS + 512), hard))
        clients: list[socket.socket] = []
        try:
            for _ in range(IDLE_CONNECTIONS):
                client = socket.create_connection(("127.0.0.1", daemon.port or 0), timeout=10)
                client.sendall(b"GET /healthz HTTP/1.1\r\nHost: omkd\r\n")  # no blank line: never complete
                clients.append(client)
            assert daemon.get("/healthz", raw=True) == b"ok\n"
            assert open_descriptors(pid) <= MAX_CONNECTIONS + 64
            with path.open("ab") as handle:
                handle.write(session_bytes(PLAN, first_minute=30))
            wait_lines(daemon, 2 * first)
            assert daemon.process.poll() is None
        finally:
            for client in clients:
                client.close()
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        assert daemon.stop() == 0


class FakeTransport:
    def __init__(self) -> None:
        self.aborted = False

    def abort(self) -> None:
        self.aborted = True


def test_the_guard_closes_requests_past_their_deadline_but_never_one_being_answered() -> None:
    """Deadlines: a connection that has not delivered its request in time is aborted, one being
    answered never is; at the cap, a newcomer closes the waiting connection nearest its deadline."""
    guard = ConnectionGuard(cap=2, request_timeout=0.0)
    slow, busy, newcomer = FakeTransport(), FakeTransport(), FakeTransport()
    guard.opened(slow)  # type: ignore[arg-type]
    guard.opened(busy)  # type: ignore[arg-type]
    guard.answering(busy)  # type: ignore[arg-type]
    guard.opened(newcomer)  # type: ignore[arg-type]  # at the cap: the waiting one goes
    assert (slow.aborted, busy.aborted, newcomer.aborted) == (True, False, False)
    guard.reap()
    assert (busy.aborted, newcomer.aborted) == (False, True)
