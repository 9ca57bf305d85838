"""The Python module's tests run against a real objwired on 127.0.0.1, started per test
(as tests/integration/daemon_helpers.sh does for the shell tests): port 0, and the port read
from its log with a deadline. CTest gives OBJWIRED, OBJWIRE (the two programs) and
PYTHONPATH (build/python)."""

import os
import pathlib
import re
import signal
import subprocess
import sys
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))

OBJWIRED = os.environ.get("OBJWIRED", "build/daemon/objwired")
OBJWIRE = os.environ.get("OBJWIRE", "build/client/objwire")


def wait_until(condition, timeout=10.0, what="a condition"):
    """Polls `condition` until it is true; fails the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


class Daemon:
    """One objwired over one data directory; restartable on the same port."""

    def __init__(self, data_dir, log_dir, extra=(), env=None):
        self.data_dir = data_dir
        self.log_dir = log_dir
        self.extra = list(extra)
        self.env = dict(os.environ, **(env or {}))
        self.port = 0
        self.proc = None
        self.starts = 0

    @property
    def to(self):
        return f"127.0.0.1:{self.port}"

    def start(self):
        self.starts += 1
        log = self.log_dir / f"objwired-{self.starts}.log"
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                [OBJWIRED, "--listen", f"127.0.0.1:{self.port}", "--data-dir", str(self.data_dir),
                 *self.extra], stdout=subprocess.DEVNULL, stderr=out, env=self.env)

        def logged_port():
            if self.proc.poll() is not None:
                pytest.fail(f"objwired exited ({self.proc.returncode}): {log.read_text()}")
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", log.read_text(errors="replace"))
            return m and int(m.group(1))

        self.port = wait_until(logged_port, 10, "objwired to log its port")
        return self

    def kill(self, sig=signal.SIGKILL):
        self.proc.send_signal(sig)
        self.proc.wait(timeout=30)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.kill(signal.SIGTERM)

    def cli(self, *args, input=None):
        """Runs the objwire CLI against this daemon; returns the completed process."""
        return subprocess.run([OBJWIRE, *args, "--to", self.to], input=input,
                              capture_output=True, timeout=120)


@pytest.fixture
def daemon(tmp_path):
    d = Daemon(tmp_path / "data", tmp_path)
    d.start()
    yield d
    d.stop()
