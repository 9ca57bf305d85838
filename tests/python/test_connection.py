"""Options, the connection's errors, reruns, flush, Ctrl-C."""

import os
import signal
import threading
import time

import pytest

import objwire
from blocked_call import CALLS, interrupt_blocked
from conftest import wait_until


def test_import_gives_the_module_and_its_exceptions():
    assert issubclass(objwire.TimeoutError, TimeoutError)
    assert issubclass(objwire.ConnectionLostError, ConnectionError)
    assert issubclass(objwire.OptionsError, ValueError)


def test_options_are_objwire_toml_keys_checked_by_the_loader(daemon):
    objwire.check_options(batch_linger="1ms", linger="2ms", compression_policy="never",
                          **{"flow.max_async_sends": 10})
    with pytest.raises(objwire.OptionsError) as e:
        objwire.check_options(batch_linger="5 parsecs")
    assert "batch_linger" in e.value.text and e.value.code == "invalid_options"
    with pytest.raises(objwire.OptionsError, match="batch_max_bytes"):
        objwire.connect(to=daemon.to, batch_max_bytes=10)
    with pytest.raises(objwire.OptionsError, match="compression"):
        objwire.connect(to=daemon.to, compression="auto")
    with objwire.connect(to=daemon.to, batch_linger="0ms", compression_policy="never") as conn:
        conn.send(1)


def test_connect_to_nothing_raises_connect_error(daemon):
    port = daemon.port
    daemon.stop()
    with pytest.raises(objwire.ConnectError) as e:
        objwire.connect(to=f"127.0.0.1:{port}", connect_timeout="1s")
    assert e.value.code == "connect_failed" and str(port) in e.value.text


def test_send_after_close_raises_not_open(daemon):
    conn = objwire.connect(to=daemon.to)
    conn.close()
    with pytest.raises(objwire.NotOpenError):
        conn.send(1)


def test_flush_waits_for_durability_and_times_out_on_a_stopped_daemon(daemon):
    conn = objwire.connect(to=daemon.to, retry_for="0ms")
    conn.send({"a": 1})
    conn.flush(10)
    assert conn.unacknowledged == 0 and conn.stats()["objects_acked"] == 1
    os.kill(daemon.proc.pid, signal.SIGSTOP)
    try:
        conn.send({"a": 2})
        started = time.monotonic()
        with pytest.raises(objwire.TimeoutError) as e:
            conn.flush(0.3)
        assert time.monotonic() - started >= 0.3 and e.value.code == "timed_out"
        assert conn.unacknowledged == 1
    finally:
        os.kill(daemon.proc.pid, signal.SIGCONT)
    conn.flush(10)
    conn.close()


def test_a_killed_daemon_past_the_retry_window_is_connection_lost(daemon):
    conn = objwire.connect(to=daemon.to, retry_for="0ms")
    daemon.kill()
    with pytest.raises((objwire.ConnectionLostError, objwire.ConnectError)):
        for i in range(1000):
            conn.send(i)
            conn.flush(5)


def test_a_rerun_with_the_same_sender_id_skips_what_is_stored(daemon):
    objs = [{"i": i} for i in range(1000)]
    with objwire.connect(to=daemon.to, sender_id="rerun") as conn:
        conn.send_many(objs[:600])
    with objwire.connect(to=daemon.to, sender_id="rerun") as conn:
        assert conn.stored_objects == 600
        assert conn.send_many(objs) == 1000
        assert conn.skipped_objects == 600
    assert [m.obj for m in objwire.read(to=daemon.to)] == objs
    with pytest.raises(objwire.InputMismatchError):
        with objwire.connect(to=daemon.to, sender_id="rerun") as conn:
            conn.send_many([{"i": -1}] * 1000)


def test_send_many_names_the_index_of_a_refused_object(daemon):
    with objwire.connect(to=daemon.to) as conn:
        with pytest.raises(TypeError, match=r"^\[2\]"):
            conn.send_many([1, 2, object(), 4])
    assert [m.obj for m in objwire.read(to=daemon.to)] == [1, 2]


def state(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def waiting(pid):
    """The script's main thread sleeps: past its "calling" line that is in the call. One look,
    not two in a row: on a busy machine a thread that wakes every slice to run the signal
    handlers waits long for a core, and is seldom seen asleep twice."""
    if state(pid) == "S":
        return True
    time.sleep(0.01)  # paces the looks
    return False


@pytest.mark.parametrize("call", CALLS)
def test_ctrl_c_interrupts_every_blocking_call(daemon, call):
    took = interrupt_blocked(daemon.to, daemon.proc.pid, call,
                             lambda pid: wait_until(lambda: waiting(pid), 60, f"{call} to wait"))
    print(f"Ctrl-C ended {call} in {took * 1000:.0f} ms")
    # Without the interrupt each call would wait for ever (or for its timeout, longer than this
    # bound). How soon it ends is measured by tests/bench/python_bench.py (docs/PYTHON.md).
    assert took < 3.0


def test_a_connection_is_usable_from_several_threads(daemon):
    with objwire.connect(to=daemon.to) as conn:
        threads = [threading.Thread(target=lambda t=t: conn.send_many({"t": t, "i": i} for i in range(500)))
                   for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    got = [m.obj for m in objwire.read(to=daemon.to)]
    assert len(got) == 2000
    for t in range(4):
        assert [o["i"] for o in got if o["t"] == t] == list(range(500))


def test_send_many_names_the_index_and_field_the_encoder_refused(daemon):
    deep = "leaf"
    for _ in range(70):
        deep = [deep]
    objs = [{"i": i} for i in range(3000)]
    objs[2500] = {"deep": deep}
    with objwire.connect(to=daemon.to) as conn:
        with pytest.raises(objwire.RefusedError) as e:
            conn.send_many(objs)
        assert e.value.code == "depth_exceeded"
        assert e.value.text.startswith('message refused: send_many[2500] ["deep"][0][0]'), e.value.text
    assert [m.obj for m in objwire.read(to=daemon.to)] == objs[:2500]


def test_interrupt_from_another_thread_ends_a_send_waiting_on_a_stopped_daemon(daemon):
    conn = objwire.connect(to=daemon.to, retry_for="0ms", flow_max_in_flight="64KiB")
    raised = []

    def produce():
        try:
            conn.send_many({"pad": "x" * 1000, "i": i} for i in range(10**9))
        except objwire.Error as e:
            raised.append(e)

    os.kill(daemon.proc.pid, signal.SIGSTOP)
    try:
        producer = threading.Thread(target=produce)
        producer.start()
        conn.interrupt()  # ends its waits from then on: whether it waits yet or not
        producer.join(timeout=10)
        assert not producer.is_alive()
    finally:
        os.kill(daemon.proc.pid, signal.SIGCONT)
    assert isinstance(raised[0], objwire.InterruptedError) and raised[0].code == "interrupted"
    assert not conn.is_open
