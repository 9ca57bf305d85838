#!/usr/bin/env python3
"""Opens N connections to 127.0.0.1:PORT that never send a byte, prints "open N" once all are
connected, holds them until its standard input ends (at most 120 s), then closes them all and
prints "closed". A flood of silent peers for the shell tests (fleet_silent_connections_test.sh).
"""
import resource
import select
import socket
import sys


def main():
    port, count = int(sys.argv[1]), int(sys.argv[2])
    # Raised within the hard limit: a connection is a descriptor here.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = count + 64
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE,
                           (want if hard == resource.RLIM_INFINITY else min(want, hard), hard))
    held = []
    try:
        for _ in range(count):
            # The kernel completes each in the daemon's listen backlog; none sends a byte.
            held.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        print(f"open {len(held)}", flush=True)
        select.select([sys.stdin], [], [], 120)
    finally:
        for s in held:
            s.close()
        print("closed", flush=True)


if __name__ == "__main__":
    main()
