"""asyncio: send_async and read_async leave the event loop free."""

import asyncio
import gc
import os
import signal
import time

import pytest

import objwire


async def timer(ticks, stop):
    """A 1 ms timer: the time of each tick."""
    while not stop.is_set():
        await asyncio.sleep(0.001)
        ticks.append(time.monotonic())


def test_100000_send_async_complete_while_a_1ms_timer_keeps_firing(daemon):
    async def main():
        ticks, stop = [], asyncio.Event()
        ticking = asyncio.create_task(timer(ticks, stop))
        conn = objwire.connect(to=daemon.to)
        futures = []
        for chunk in range(500):  # a producer that yields to the loop between bursts
            futures.extend(conn.send_async({"chunk": chunk, "i": i}) for i in range(200))
            await asyncio.sleep(0)
            if chunk == 250:
                # The daemon stops answering with 50,000 sends waiting: the loop goes on.
                os.kill(daemon.proc.pid, signal.SIGSTOP)
                try:
                    stopped_at = len(ticks)
                    deadline = time.monotonic() + 20
                    while len(ticks) < stopped_at + 50 and time.monotonic() < deadline:
                        await asyncio.sleep(0.001)
                    ticks_while_stopped = len(ticks) - stopped_at
                    pending = sum(not f.done() for f in futures)
                finally:
                    os.kill(daemon.proc.pid, signal.SIGCONT)
        await asyncio.gather(*futures)
        stop.set()
        await ticking
        await conn.close_async()
        return ticks_while_stopped, pending, ticks

    ticks_while_stopped, pending, ticks = asyncio.run(main())
    assert ticks_while_stopped >= 50 and pending > 0
    gaps = sorted(b - a for a, b in zip(ticks, ticks[1:]))
    print(f"{len(ticks)} ticks, p99 gap {gaps[len(gaps) * 99 // 100] * 1000:.2f} ms")
    assert len(list(objwire.read(to=daemon.to))) == 100_000


def test_send_async_fails_with_the_library_error(daemon):
    async def main():
        conn = objwire.connect(to=daemon.to, flow_max_async_sends=10, retry_for="0ms")
        os.kill(daemon.proc.pid, signal.SIGSTOP)
        try:
            waiting = [conn.send_async(i) for i in range(10)]
            await asyncio.sleep(0)  # the turn ends: the ten go to the library as one batch
            with pytest.raises(objwire.TooManyInFlightError) as e:
                await conn.send_async(10)
            assert e.value.code == "too_many_in_flight" and "max_async_sends" in e.value.text
            conn.set_send_timeout(0.2)
        finally:
            os.kill(daemon.proc.pid, signal.SIGCONT)
        await asyncio.gather(*waiting)
        conn.set_send_timeout(0.2)
        os.kill(daemon.proc.pid, signal.SIGSTOP)
        try:
            with pytest.raises(objwire.TimeoutError, match="not acknowledged within 200 ms"):
                await conn.send_async("late")
        finally:
            os.kill(daemon.proc.pid, signal.SIGCONT)
        with pytest.raises(TypeError):
            conn.send_async(object())
        await conn.close_async()

    asyncio.run(main())


def test_read_async_follows_without_blocking_the_loop(daemon):
    async def main():
        ticks, stop = [], asyncio.Event()
        ticking = asyncio.create_task(timer(ticks, stop))
        got = []
        reader = objwire.read_async(to=daemon.to, follow=True)

        async def consume():
            async for m in reader:
                got.append(m.obj)
                if len(got) == 51:
                    break

        consuming = asyncio.create_task(consume())
        conn = objwire.connect(to=daemon.to)
        await asyncio.gather(*(conn.send_async(i) for i in range(50)))
        ticks_before = len(ticks)
        while len(ticks) < ticks_before + 5:  # the loop runs while the follower waits
            await asyncio.sleep(0.001)
        await conn.send_async(50)
        await asyncio.wait_for(consuming, 20)
        await reader.aclose()
        stop.set()
        await ticking
        await conn.close_async()
        return got

    assert asyncio.run(main()) == list(range(51))


def test_a_refused_object_fails_alone_among_the_sends_of_its_turn(daemon):
    deep = "x"
    for _ in range(100):
        deep = [deep]

    async def main():
        conn = objwire.connect(to=daemon.to)
        futures = [conn.send_async(o) for o in (0, 1, {"deep": deep}, 3, 4)]
        results = await asyncio.gather(*futures, return_exceptions=True)
        await conn.close_async()
        return results

    results = asyncio.run(main())
    assert results[:2] == [None, None] and results[3:] == [None, None]
    assert isinstance(results[2], objwire.RefusedError) and results[2].code == "depth_exceeded"
    assert sorted(m.obj for m in objwire.read(to=daemon.to)) == [0, 1, 3, 4]


def test_waiting_futures_add_nothing_for_the_garbage_collector_to_walk(daemon):
    """A full collection walks every tracked object: 100,000 waiting sends must not be 100,000
    more of them (the timer's gaps this avoids are measured by tests/bench/python_bench.py)."""
    async def main():
        conn = objwire.connect(to=daemon.to)
        await conn.send_async("first")  # the loop's own objects for send_async exist by now
        os.kill(daemon.proc.pid, signal.SIGSTOP)
        try:
            before = len(gc.get_objects())
            futures = [conn.send_async(i) for i in range(10_000)]
            await asyncio.sleep(0)  # handed to the library as one batch
            grown = len(gc.get_objects()) - before
            waiting_tracked = sum(gc.is_tracked(f) for f in futures)
            pending = sum(not f.done() for f in futures)
        finally:
            os.kill(daemon.proc.pid, signal.SIGCONT)
        await asyncio.gather(*futures)
        settled_tracked = sum(gc.is_tracked(f) for f in futures)
        await conn.close_async()
        return grown, waiting_tracked, pending, settled_tracked

    grown, waiting_tracked, pending, settled_tracked = asyncio.run(main())
    assert pending == 10_000 and waiting_tracked == 0
    assert grown < 100, f"{grown} objects tracked for 10,000 sends"
    assert settled_tracked == 10_000  # settled, they are ordinary objects again

