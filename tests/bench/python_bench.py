#!/usr/bin/env python3
"""The Python module's throughput and latency against a running objwired (docs/PERFORMANCE.md,
"Python"):

    PYTHONPATH=build/python python3 tests/bench/python_bench.py 127.0.0.1:PORT [COUNT] [RUNS]

- send_many of the `events` workload as dicts, and as the Event dataclass;
- the same dicts as a Python program sends them without the module: json.dumps lines written
  into `objwire send -` (build/client/objwire, or $OBJWIRE);
- 100,000 send_async from an asyncio program while a 1 ms timer runs, a done callback on each
  future: the timer's gaps (alone; with the sends; with the callbacks sharing one context; with
  the garbage collector off), each in a process of its own;
- read() of the last COUNT objects back into Python;
- a full garbage collection while 100,000 send_async wait on a stopped daemon: the objects
  the collector tracks and the time it takes;
- Ctrl-C (SIGINT) in a script blocked in send, send_many, flush or connect on a stopped daemon,
  or in a follower's read: the time from the signal to KeyboardInterrupt, RUNS times each.

COUNT objects per run (default 1,000,000: the first 100,000 events, sent COUNT/100,000 times
over), compression off; each figure is the median of RUNS (default 3) in one invocation. The
timer's gaps and Ctrl-C are measured RUNS times, each shown. COUNT 0: only those.
Objects per second are wall-clock, from connect() to the last acknowledgement (close()), and
per CPU second of the sending processes (this one and, for the json path, `objwire send`).
"""

import asyncio
import json
import os
import signal
import pathlib
import resource
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))

import objwire  # noqa: E402
from blocked_call import CALLS, interrupt_blocked  # noqa: E402
from events import events  # noqa: E402

OBJWIRE = os.environ.get("OBJWIRE", str(ROOT / "build" / "client" / "objwire"))


def cpu(who=resource.RUSAGE_SELF):
    u = resource.getrusage(who)
    return u.ru_utime + u.ru_stime


def repeated(objs, count):
    for _ in range(count // len(objs)):
        yield from objs


def module_run(to, objs, count):
    wall, spent = time.monotonic(), cpu()
    with objwire.connect(to=to, compression_policy="never") as conn:
        conn.send_many(repeated(objs, count))
    return count / (time.monotonic() - wall), count / (cpu() - spent)


def json_run(to, objs, count):
    env = dict(os.environ, OBJWIRE_COMPRESSION_POLICY="never")
    wall, spent, children = time.monotonic(), cpu(), cpu(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen([OBJWIRE, "send", "-", "--to", to], stdin=subprocess.PIPE,
                            text=True, bufsize=1 << 20, env=env)
    write, dumps = proc.stdin.write, json.dumps
    for o in repeated(objs, count):
        write(dumps(o, separators=(",", ":")))
        write("\n")
    proc.stdin.close()
    if proc.wait() != 0:
        sys.exit(f"objwire send exited {proc.returncode}")
    used = cpu() - spent + cpu(resource.RUSAGE_CHILDREN) - children
    return count / (time.monotonic() - wall), count / used


def timer_gaps(to, sends=100_000, burst=200, shared_context=False):
    """The 1 ms timer's gaps (p50, p99, max in ms) while `sends` send_async complete, started
    `burst` at a time, each with a done callback; with sends=0, the timer alone for as long
    (what the machine gives). `shared_context`: the callbacks are added with one context,
    instead of the copy per callback asyncio otherwise keeps (docs/PYTHON.md, "asyncio")."""
    import contextvars
    context = contextvars.copy_context() if shared_context else None

    async def main():
        ticks, stop = [], asyncio.Event()

        async def timer():
            while not stop.is_set():
                await asyncio.sleep(0.001)
                ticks.append(time.monotonic())

        ticking = asyncio.create_task(timer())
        await asyncio.sleep(0.05)
        conn = objwire.connect(to=to)
        left = sends
        all_done = asyncio.Event()

        def done(_):
            nonlocal left
            left -= 1
            if left == 0:
                all_done.set()

        first = len(ticks)
        if sends == 0:
            await asyncio.sleep(1.0)
            all_done.set()
        for b in range(sends // burst):
            for i in range(burst):
                conn.send_async({"b": b, "i": i}).add_done_callback(done, context=context)
            await asyncio.sleep(0)
        await all_done.wait()
        stop.set()
        await ticking
        await conn.close_async()
        return ticks[first:]

    ticks = asyncio.run(main())
    gaps = sorted((b - a) * 1000 for a, b in zip(ticks, ticks[1:]))
    return gaps[len(gaps) // 2], gaps[len(gaps) * 99 // 100], gaps[-1]


def full_collection(to, daemon_pid, callbacks, sends=100_000, burst=200):
    """(objects the garbage collector tracks, ms of a full collection) with `sends` send_async
    waiting on a stopped daemon; with `callbacks`, each future has a done callback, as gather()
    adds (asyncio then keeps a copy of the context per callback)."""
    import gc

    async def main():
        conn = objwire.connect(to=to)
        os.kill(daemon_pid, signal.SIGSTOP)
        try:
            futures = []
            for b in range(sends // burst):
                for i in range(burst):
                    futures.append(conn.send_async({"b": b, "i": i}))
                    if callbacks:
                        futures[-1].add_done_callback(bool)
                await asyncio.sleep(0)
            gc.collect()
            started = time.perf_counter()
            gc.collect()
            took = (time.perf_counter() - started) * 1000
            tracked = len(gc.get_objects())
        finally:
            os.kill(daemon_pid, signal.SIGCONT)
        await asyncio.gather(*futures, return_exceptions=True)
        await conn.close_async()
        return tracked, took

    return asyncio.run(main())


def ctrl_c(to, daemon_pid, call):
    """Milliseconds from SIGINT to KeyboardInterrupt in a script blocked in `call`."""
    def blocked(_):
        time.sleep(1.0)  # a benchmark: the call has long been waiting for the daemon by then
    return interrupt_blocked(to, daemon_pid, call, blocked) * 1000


def daemon_pid(to):
    port = to.rsplit(":", 1)[1]
    out = subprocess.run(["ss", "-Hltnp", f"sport = :{port}"], capture_output=True, text=True)
    return int(out.stdout.split("pid=")[1].split(",")[0])


def main():
    if sys.argv[1] == "--timer":
        if sys.argv[4] == "off":
            import gc
            gc.disable()  # the 100,000 callbacks' contexts alive make each full collection long
        print(*timer_gaps(sys.argv[2], int(sys.argv[3]), shared_context=sys.argv[4] == "shared"))
        return
    if sys.argv[1] == "--collect":
        print(*full_collection(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "callbacks"))
        return
    to = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    if count > 0:
        throughput(to, count, runs)
    latency(to, runs)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def throughput(to, count, runs):
    dicts = list(events(min(count, 100_000)))
    classes = list(events(min(count, 100_000), as_dataclass=True))
    table = []
    for name, run, objs in (("send_many, dicts", module_run, dicts),
                            ("send_many, dataclasses", module_run, classes),
                            ("json.dumps lines into objwire send -", json_run, dicts)):
        results = [run(to, objs, count) for _ in range(runs)]
        wall = statistics.median(r[0] for r in results)
        per_cpu = statistics.median(r[1] for r in results)
        table.append((name, wall, per_cpu))
        print(f"{name:40s} {wall:12,.0f} objects/s {per_cpu:12,.0f} per CPU second", flush=True)
    print(f"dicts / json path: {table[0][1] / table[2][1]:.2f}x wall, "
          f"{table[0][2] / table[2][2]:.2f}x per CPU second")
    wall, spent = time.monotonic(), cpu()
    got = sum(1 for _ in objwire.read(to=to, last=count))
    print(f"{'read() of the last ' + str(got) + ' as dicts':40s} "
          f"{got / (time.monotonic() - wall):12,.0f} objects/s {got / (cpu() - spent):12,.0f} "
          "per CPU second", flush=True)


def latency(to, runs):
    cases = {"on": "gc on", "shared": "gc on, callbacks sharing a context", "off": "gc off"}
    for sends, gc in ((0, "on"), (100_000, "on"), (100_000, "shared"), (100_000, "off")):
        # In a process of its own: this one holds the objects above, whose garbage collection
        # would stop the loop for longer than anything measured.
        for _ in range(runs):
            out = subprocess.run([sys.executable, __file__, "--timer", to, str(sends), gc],
                                 capture_output=True, text=True, check=True).stdout
            p50, p99, worst = map(float, out.split())
            what = f"during 100,000 send_async, {cases[gc]}" if sends else "alone, 1 s"
            print(f"1 ms timer {what}: gap p50 {p50:.2f} ms, p99 {p99:.2f} ms, "
                  f"max {worst:.2f} ms", flush=True)
    pid = daemon_pid(to)
    for callbacks in ("none", "callbacks"):
        for _ in range(runs):
            out = subprocess.run([sys.executable, __file__, "--collect", to, str(pid), callbacks],
                                 capture_output=True, text=True, check=True).stdout
            tracked, took = out.split()
            what = "a done callback each" if callbacks == "callbacks" else "no callbacks"
            print(f"full collection, 100,000 send_async waiting ({what}): {int(tracked):,} "
                  f"objects tracked, {float(took):.1f} ms", flush=True)
    for call in CALLS:
        times = sorted(ctrl_c(to, pid, call) for _ in range(runs))
        print(f"Ctrl-C during {call}: {' '.join(f'{t:.0f}' for t in times)} ms", flush=True)


if __name__ == "__main__":
    main()
