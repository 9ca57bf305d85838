"""A reader start that holds its slot of limits.max_reader_starts_per_address (1) refuses the
next one from the same address; once it is over, a start succeeds again.

Usage: reader_start_cap.py OBJWIRE PORT METRICS_PORT TOKEN_FILE

What holds a slot: only a start that walks the journal keeps it across the daemon's other work
(index starts by time or by a sender's last N take and give it back without waiting on
anything). A reader whose permissions let it see only some senders and that asks for the last
N objects without naming a sender walks from the oldest block (docs/JOURNAL.md 4.6), and its
slot stays taken until the walk ends or the peer goes; the peer is answered (a welcome) only
after the walk. So: peer A says that hello and is not yet answered, the metrics say one start
runs, then peer B's start by time must be refused with too_many_connections naming the key. If
A's walk ended first, B is admitted: the round proves nothing and is tried again, at most
ROUNDS times (a cap that never refuses fails). Then A closes, its walk stops, the gauge goes back to 0, and B's start succeeds.
Prints the refusals seen.
"""
import select
import socket
import sys
import time
import urllib.request

from raw_frames import DEADLINE, captured_hello, read_frame

objwire, port, metrics_port, token_file = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    sys.argv[4]
ROUNDS = 20
KEY = "limits.max_reader_starts_per_address = 1"
WELCOME, ERROR = 2, 5

walk = captured_hello(objwire, "read", ["--from", "-5", "--token-file", token_file])
by_time = captured_hello(objwire, "read", ["--from", "@2100-01-01T00:00:00Z",
                                           "--token-file", token_file])


def metric(name):
    url = f"http://127.0.0.1:{metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=DEADLINE) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    raise RuntimeError(f"{name} not in the metrics")


def wait_for(name, value):
    """Whether the metric reached `value` within DEADLINE (polled, no fixed sleep)."""
    until = time.monotonic() + DEADLINE
    while time.monotonic() < until:
        if metric(name) == value:
            return True
        select.select([], [], [], 0.001)  # a millisecond between polls of a local endpoint
    return False


def connect(hello):
    s = socket.socket()
    s.settimeout(DEADLINE)
    s.connect(("127.0.0.1", port))
    s.sendall(hello)
    return s


def first_frame(hello):
    """The kind and payload of the daemon's first frame to `hello` on a new connection."""
    with connect(hello) as s:
        header, payload = read_frame(s)
    return header[0], payload


refusals = 0
for _ in range(ROUNDS):
    a = connect(walk)
    try:
        if not wait_for("objwire_reader_starts_running", 1):
            sys.exit("peer A's walk never showed as a running start")
        kind, payload = first_frame(by_time)
        if kind == ERROR:
            text = payload.decode(errors="replace")
            if "too_many_connections" not in text and "too many" not in text.lower():
                sys.exit(f"refused, but not at the cap: {text}")
            if KEY not in text or "reader starts searching the journal for 127.0.0.1" not in text:
                sys.exit(f"the refusal does not name the address and the key: {text}")
            refusals += 1
            break
        if kind != WELCOME:
            sys.exit(f"peer B's first frame is of kind {kind}")
        # Admitted: A's walk had ended before B's hello was read (a cap that admits B while A
        # walks is never caught refusing, and the test fails below). Try again.
    finally:
        a.close()
if refusals == 0:
    sys.exit(f"no round of {ROUNDS} caught peer A's walk running")
# A has gone: its walk stops at its next round and gives the slot back.
if not wait_for("objwire_reader_starts_running", 0):
    sys.exit("peer A's walk still runs after it closed")
kind, payload = first_frame(by_time)
if kind != WELCOME:
    sys.exit(f"after peer A went, peer B was answered with kind {kind}: {payload!r}")
print(refusals)
