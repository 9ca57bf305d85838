"""Floods objwired with reader hellos that start by time or by a sender's last N objects,
each connection closed as soon as its hello is written.

Usage: reader_start_flood.py OBJWIRE PORT SENDER READY_FILE STOP_FILE

The hellos are the real client's: `objwire read --from @2100-01-01T00:00:00Z` (a time after
every stored object: a scan would read the whole journal and find nothing) and `objwire read
--from -20 --sender SENDER` (the last 20 of a sender that stored only at the journal's start)
are pointed once at a listener here and their first frame kept. 16 threads then connect, say
one of the two hellos and close, until STOP_FILE exists (at most 120 s). READY_FILE is written
once every thread has sent its first hello. Prints the hellos sent.
"""
import os
import socket
import sys
import threading
import time

from raw_frames import DEADLINE, captured_hello

objwire, port, sender, ready_file, stop_file = sys.argv[1], int(sys.argv[2]), *sys.argv[3:6]
THREADS = 16
LONGEST = 120.0  # the flood ends by itself after this, whatever the test does


hellos = [captured_hello(objwire, "read", ["--from", "@2100-01-01T00:00:00Z"]),
          captured_hello(objwire, "read", ["--from", "-20", "--sender", sender])]
sent = [0] * THREADS
started = threading.Barrier(THREADS + 1)
end = time.monotonic() + LONGEST


def flood(i):
    first = True
    while time.monotonic() < end and not os.path.exists(stop_file):
        with socket.socket() as s:
            s.settimeout(DEADLINE)
            try:
                s.connect(("127.0.0.1", port))
                s.sendall(hellos[(i + sent[i]) % 2])
                sent[i] += 1
            except OSError:
                pass  # refused at a cap, or the daemon busy: the flood goes on
        if first:
            first = False
            started.wait()


threads = [threading.Thread(target=flood, args=(i,)) for i in range(THREADS)]
for t in threads:
    t.start()
started.wait()
with open(ready_file, "w") as f:
    f.write("ready\n")
for t in threads:
    t.join()
print(sum(sent))
