"""Ctrl-C in a script blocked in one of the module's calls, on a daemon that stopped answering:
how long from SIGINT to KeyboardInterrupt. Shared by test_connection.py (a generous bound) and
tests/bench/python_bench.py (the figures)."""

import os
import signal
import subprocess
import sys
import textwrap
import time

# The script: blocked in argv[2]; says how the call ended. A follower waits on a live daemon
# for objects that do not come; every other call on a stopped daemon.
# The script: blocked in argv[2]; says how the call ended. A follower waits on a live daemon
# for objects that do not come; every other call on a stopped daemon. It connects, says "ready",
# waits for "go" (the daemon is stopped by then), says "calling" and makes the call: from that
# line on, the script's only work is the call, so a sleeping main thread is one waiting in it.
SCRIPT = textwrap.dedent("""
    import sys, objwire
    to, call = sys.argv[1], sys.argv[2]
    options = dict(retry_for="0ms", flow_max_in_flight="64KiB")
    conn = objwire.connect(to=to, **options) if call in ("send", "send_many", "flush") else None
    print("ready", flush=True)
    assert sys.stdin.readline().strip() == "go"
    print("calling", flush=True)
    try:
        if call == "send":
            while True:
                conn.send({"pad": "x" * 1000})
        elif call == "send_many":
            conn.send_many({"pad": "x" * 1000, "i": i} for i in range(10**9))
        elif call == "flush":
            conn.send(1)
            conn.flush()
        elif call == "read":
            for m in objwire.read(to=to, follow=True):
                pass
        elif call == "connect":
            objwire.connect(to=to, **options)
        print("returned", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
""")

CALLS = ("send", "send_many", "flush", "read", "connect")


def interrupt_blocked(to, daemon_pid, call, wait_blocked):
    """Seconds from SIGINT to the script's "interrupted" line, once wait_blocked(child pid)
    returned; raises AssertionError when the call ended otherwise."""
    stopped = call != "read"
    if call == "connect":  # stopped first: the connect waits for the daemon's welcome
        os.kill(daemon_pid, signal.SIGSTOP)
    child = subprocess.Popen([sys.executable, "-c", SCRIPT, to, call], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, env=os.environ)
    try:
        assert child.stdout.readline().strip() == "ready"
        if stopped and call != "connect":
            os.kill(daemon_pid, signal.SIGSTOP)
        child.stdin.write("go\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "calling"
        wait_blocked(child.pid)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline().strip()
        took = time.monotonic() - sent
        assert line == "interrupted", f"{call} ended with {line!r}"
        assert child.wait(timeout=10) == 0
    finally:
        if stopped:
            os.kill(daemon_pid, signal.SIGCONT)
        child.kill()
        child.wait()
    return took
