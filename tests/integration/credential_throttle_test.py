"""Wrong tokens from one address are slowed; a right token from another is served at once.

Usage: credential_throttle_test.py OBJWIRE PORT WRONG_TOKEN_FILE RIGHT_TOKEN_FILE

The hellos are the real client's: `objwire send` is pointed at a listener here once with each
token file and its first frame kept. 1,000 connections from 127.0.0.2 then say the wrong hello
(one after another, each reading the daemon's answer to the end) while 127.0.0.1 says the
right one; every answer names why, so the checked and the throttled are counted exactly.
"""
import socket
import subprocess
import sys
import threading
import time

import raw_frames
from raw_frames import DEADLINE, read_frame

objwire, port, wrong_file, right_file = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
BURST, PER_SECOND = 10, 1.0  # docs/SECURITY.md, "Guessing tokens"
ATTEMPTS = 1000


def captured_hello(token_file, sender_id):
    return raw_frames.captured_hello(
        objwire, "send", ["-", "--token-file", token_file, "--sender-id", sender_id,
                          "--retry-for", "0"], stdin=subprocess.PIPE)


def answer(hello, source):
    """The daemon's whole answer to `hello` said from `source`."""
    with socket.socket() as s:
        s.bind((source, 0))
        s.settimeout(DEADLINE)
        s.connect(("127.0.0.1", port))
        s.sendall(hello)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return data
            data += chunk


wrong = captured_hello(wrong_file, "app-guess")
right = captured_hello(right_file, "app-probe")
counts = {"checked": 0, "throttled": 0, "other": 0}
flood_started = threading.Event()
measured = threading.Event()


def flood():
    # At least ATTEMPTS, and on until the right token was served (bounded: 60 s).
    end = time.monotonic() + 60
    attempts = 0
    while (attempts < ATTEMPTS or not measured.is_set()) and time.monotonic() < end:
        attempts += 1
        reply = answer(wrong, "127.0.0.2")
        if b"wrong token" in reply:
            counts["checked"] += 1
        elif b"too many failed credentials from 127.0.0.2" in reply:
            counts["throttled"] += 1
        else:
            counts["other"] += 1
        if counts["throttled"]:
            flood_started.set()


start = time.monotonic()
attacker = threading.Thread(target=flood)
attacker.start()
assert flood_started.wait(60), f"no attempt was throttled: {counts}"
# The right token from another address, while the flood goes on: hello to welcome.
with socket.socket() as s:
    s.settimeout(DEADLINE)
    s.connect(("127.0.0.1", port))
    t0 = time.monotonic()
    s.sendall(right)
    header, payload = read_frame(s)
    served_ms = (time.monotonic() - t0) * 1000
measured.set()
attacker.join()
elapsed = time.monotonic() - start

total = sum(counts.values())
print(f"{total} wrong tokens from 127.0.0.2 in {elapsed:.2f} s: {counts['checked']} checked, "
      f"{counts['throttled']} refused unchecked; the right token from 127.0.0.1 was welcomed "
      f"in {served_ms:.1f} ms")
print(f"throttled={counts['throttled']} checked={counts['checked']}")
assert header[0] == 2, f"the right token got frame kind {header[0]}: {payload!r}"
assert counts["other"] == 0, counts
assert total >= ATTEMPTS, counts
# The documented rate: the burst, then one a second of the time the flood took.
assert counts["checked"] <= BURST + PER_SECOND * elapsed + 1, (counts, elapsed)
assert counts["checked"] >= BURST, counts
assert served_ms < 100, f"the right token waited {served_ms:.1f} ms"
