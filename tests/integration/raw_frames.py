"""Frames as a raw peer reads them (docs/PROTOCOL.md: a 24-byte header, its payload length at
byte 4), and the hello the real client says, captured by a listener here. Shared by the test
scripts that speak to objwired from raw sockets."""
import socket
import struct
import subprocess

DEADLINE = 10.0  # seconds any one socket operation may take


def read_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise RuntimeError(f"closed after {len(data)} of {n} bytes")
        data += chunk
    return data


def read_frame(s):
    header = read_exact(s, 24)
    return header, read_exact(s, struct.unpack_from("<I", header, 4)[0])


def captured_hello(objwire, command, args, stdin=None):
    """The first frame of `objwire COMMAND --to HERE ARGS...`: its hello, header and payload."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.settimeout(DEADLINE)
        client = subprocess.Popen(
            [objwire, command, "--to", f"127.0.0.1:{listener.getsockname()[1]}", *args],
            stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            conn, _ = listener.accept()
            with conn:
                conn.settimeout(DEADLINE)
                header, payload = read_frame(conn)
        finally:
            client.kill()
            client.wait()
    assert header[0] == 1, f"the first frame is not a hello: kind {header[0]}"
    return header + payload
