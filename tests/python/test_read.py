"""Reading: positions, follow, cursors, a stop from another thread, gaps."""

import datetime as dt
import threading

import pytest

import objwire
from conftest import Daemon, wait_until


def send(daemon, objs, sender_id=None):
    with objwire.connect(to=daemon.to, sender_id=sender_id) as conn:
        conn.send_many(objs)


def test_messages_carry_offset_sender_and_time(daemon):
    before = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=1)
    send(daemon, [{"i": i} for i in range(5)], sender_id="s1")
    send(daemon, [{"j": 0}], sender_id="s2")
    msgs = list(objwire.read(to=daemon.to))
    assert [m.offset for m in msgs] == list(range(6))
    assert [m.sender for m in msgs] == ["s1"] * 5 + ["s2"]
    assert all(before <= m.time <= dt.datetime.now(dt.timezone.utc) for m in msgs)
    assert [m.obj for m in objwire.read(to=daemon.to, sender="s2")] == [{"j": 0}]
    assert [m.offset for m in objwire.read(to=daemon.to, from_=3)] == [3, 4, 5]
    assert [m.offset for m in objwire.read(to=daemon.to, last=2)] == [4, 5]
    assert [m.offset for m in objwire.read(to=daemon.to, since=before)] == list(range(6))
    assert list(objwire.read(to=daemon.to, from_="end")) == []


def test_a_follower_gets_new_objects_and_stops_from_another_thread(daemon):
    got = []
    reader = objwire.read(to=daemon.to, follow=True)

    def follow():
        for m in reader:
            got.append(m.obj)

    t = threading.Thread(target=follow)
    t.start()
    send(daemon, list(range(10)))
    wait_until(lambda: len(got) == 10, 10, "the follower to get 10 objects")
    send(daemon, list(range(10, 15)))
    wait_until(lambda: len(got) == 15, 10, "the follower to get 5 more")
    reader.stop()
    t.join(timeout=5)
    assert not t.is_alive() and got == list(range(15))


def test_a_follower_rides_out_a_daemon_restart(daemon):
    got = []
    reader = objwire.read(to=daemon.to, follow=True)
    t = threading.Thread(target=lambda: got.extend(m.obj for m in reader))
    t.start()
    send(daemon, list(range(5)))
    wait_until(lambda: len(got) == 5, 10, "5 objects")
    daemon.kill()
    daemon.start()
    send(daemon, list(range(5, 8)))
    wait_until(lambda: len(got) == 8, 20, "the follower to go on after the restart")
    reader.stop()
    t.join(timeout=5)
    assert got == list(range(8))


def test_a_cursor_goes_on_where_its_last_reader_left(daemon):
    send(daemon, list(range(10)))
    with objwire.read(to=daemon.to, cursor="jobs") as r:
        assert [m.obj for m in r] == list(range(10))
    send(daemon, [10, 11])
    with objwire.read(to=daemon.to, cursor="jobs") as r:
        assert [m.obj for m in r] == [10, 11]
    with objwire.read(to=daemon.to, cursor="jobs") as r:
        assert list(r) == []
    listing = daemon.cli("cursor", "list")
    assert listing.returncode == 0, listing.stderr
    assert b"jobs" in listing.stdout and b"12" in listing.stdout


def test_a_cursor_read_left_early_goes_on_at_the_next_object(daemon):
    send(daemon, list(range(10)))
    with objwire.read(to=daemon.to, cursor="early") as r:
        first = [next(r).obj for _ in range(4)]
    assert first == [0, 1, 2, 3]  # handed out: done, as the cursor now says
    with objwire.read(to=daemon.to, cursor="early") as r:
        assert [m.obj for m in r] == list(range(4, 10))


def test_a_cursor_follower_acks_what_it_handed_out_while_it_waits(daemon):
    send(daemon, list(range(6)))
    got = []
    r = objwire.read(to=daemon.to, cursor="live", follow=True)
    t = threading.Thread(target=lambda: got.extend(m.obj for m in r))
    t.start()
    wait_until(lambda: len(got) == 6, 10, "6 objects")

    def stored_at_6():
        out = daemon.cli("cursor", "list").stdout.decode()
        return any(line.split()[:2] == ["live", "6"] for line in out.splitlines())

    wait_until(stored_at_6, 10, "the waiting follower's ack to reach the daemon")
    r.stop()
    t.join(timeout=5)
    r.close()
    send(daemon, [6, 7])
    with objwire.read(to=daemon.to, cursor="live") as again:
        assert [m.obj for m in again] == [6, 7]


def test_a_gap_is_warned_or_raised_and_the_objects_around_it_are_read(tmp_path):
    d = Daemon(tmp_path / "data", tmp_path, env={"OBJWIRE_JOURNAL_SEGMENT_BYTES": "64KiB",
                                                  "OBJWIRE_JOURNAL_FSYNC": "always"})
    d.start()
    try:
        for batch in range(6):
            send(d, [{"b": batch, "pad": "x" * 100, "i": i} for i in range(600)])
        d.stop()
        segments = sorted((tmp_path / "data").glob("journal-*.owj"))
        assert len(segments) >= 4
        segments[2].write_bytes(b"")  # a segment truncated to nothing: its offsets are lost
        d.start()
        with pytest.warns(objwire.GapWarning, match=r"gap: offsets \d+ to \d+ are lost"):
            r = objwire.read(to=d.to)
            msgs = list(r)
        assert len(r.gaps) == 1
        first, end = r.gaps[0]
        offsets = [m.offset for m in msgs]
        assert offsets == [o for o in range(3600) if not first <= o < end]
        with pytest.raises(objwire.GapError) as e:
            list(objwire.read(to=d.to, on_gap="raise"))
        assert (e.value.first, e.value.end) == (first, end)
    finally:
        d.stop()


def test_read_errors_are_exceptions(daemon):
    with pytest.raises(objwire.RefusedError) as e:
        list(objwire.read(to=daemon.to, sender="nobody"))
    assert e.value.code == "not_found"
    port = daemon.port
    daemon.stop()
    with pytest.raises((objwire.ConnectError, objwire.ConnectionLostError)):
        objwire.read(to=f"127.0.0.1:{port}")
