"""Many objects: the events workload read back equal, and exactly once across a kill -9."""

import json
import threading
import time

import objwire
from conftest import wait_until
from events import events

KILL_OBJECTS = 1_000_000


def test_100000_events_dicts_read_back_equal_from_python_and_the_cli(daemon):
    sent = list(events(100_000))
    with objwire.connect(to=daemon.to, sender_id="events") as conn:
        assert conn.send_many(sent) == 100_000
    got = [m.obj for m in objwire.read(to=daemon.to)]
    assert got == sent
    assert all(type(a[k]) is type(b[k]) for a, b in zip(got, sent) for k in a)
    out = daemon.cli("read")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.decode().splitlines()
    assert len(lines) == 100_000
    assert [json.loads(line) for line in lines] == sent


def test_a_kill_9_during_send_many_stores_every_object_exactly_once(daemon):
    count = KILL_OBJECTS
    conn = objwire.connect(to=daemon.to, sender_id="bulk", retry_for="60s")
    failure = []

    def produce():
        try:
            conn.send_many({"i": i, "pad": "abcdefgh"} for i in range(count))
            conn.close()
        except BaseException as e:  # reported by the test thread
            failure.append(e)

    started = time.monotonic()
    producer = threading.Thread(target=produce)
    producer.start()
    wait_until(lambda: conn.stats()["objects_acked"] >= count // 3 or not producer.is_alive(),
               120, "a third of the objects to be acknowledged")
    assert producer.is_alive(), "the producer ended before the kill"
    daemon.kill()  # SIGKILL: nothing flushed, nothing said
    daemon.start()  # the same port and data: the connection resumes within retry_for
    producer.join(timeout=600)
    took = time.monotonic() - started
    assert not producer.is_alive() and not failure, failure
    stats = conn.stats()
    assert stats["reconnects"] >= 1 and stats["objects_acked"] == count
    seen = bytearray(count)
    stored = 0
    for m in objwire.read(to=daemon.to):
        i = m.obj["i"]
        assert seen[i] == 0, f"object {i} stored twice"
        seen[i] = 1
        stored += 1
    assert stored == count
    print(f"{count} objects, kill -9 and restart, exactly once: {took:.1f} s")
