"""asyncio: send_async's futures and read_async's iterator over the extension."""

import asyncio
import re

from ._errors import error_for
from ._objwire import track_all, untracked

_BATCH_INDEX = re.compile(r"batch\[(\d+)\]")


def _settle_all(futures, outcome):
    """Settles one batch's futures (tracked by the collector again: see Pending)."""
    track_all(futures)
    if outcome is None:
        for future in futures:
            if not future.done():
                future.set_result(None)
    else:
        for future in futures:
            if not future.done():
                future.set_exception(error_for(*outcome))


def _unwalked():
    """A list the garbage collector does not walk (see Pending)."""
    return untracked([])


class Pending:
    """A connection's send_async futures, by batch, on the loop of the first one.

    The objects started in one turn of the loop go to the library as one batch (its
    async_send_many: one job and one completion for all), at the end of the turn; the batch's
    futures and objects are two lists under its first token. The extension makes a descriptor
    readable when outcomes wait, without taking the GIL; the loop watches it and settles the
    futures of one batch per turn, so that its other callbacks (a timer) run between batches:
    settling four per turn put some 800 done callbacks into one turn and the timer's p99 gap
    at 7.5-11 ms, one puts it at 2.9-3.4 ms.

    Per send, the loop makes one object of its own: the future. The garbage collector tracks
    neither it while it waits (the extension's untracked()) nor the lists that hold the futures
    and objects: with 100,000 sends waiting, each full collection would otherwise walk 100,000
    futures and 200,000 list entries, stopping the loop for milliseconds each time. A waiting
    future and its object are held here until the future is settled, so the collector has
    nothing to free through them meanwhile; settled, the future is tracked again."""

    BATCHES_PER_TURN = 1

    def __init__(self, c, loop):
        self._c = c
        self.loop = loop
        self.running_loop = asyncio._get_running_loop  # None outside a loop, unlike get_running_loop
        self._new_future = loop.create_future
        self.batches = {}  # first token -> (futures, objects): in the library, not yet settled
        self.token = 0  # the last token handed to the library
        # Staged in this turn. The objects are kept until settled: a batch refused in its middle
        # sends the rest again.
        self.futures = _unwalked()
        self.objects = _unwalked()
        self.fd = c.async_fd()
        loop.add_reader(self.fd, self.drain)

    def add(self, obj):
        self._c.stage_async(obj)  # converted now: TypeError and refusals of the value raise here
        return self._staged(untracked(self._new_future()), obj)

    def _staged(self, future, obj):
        if not self.futures:
            self.loop.call_soon(self.send_staged)
        self.futures.append(future)
        self.objects.append(obj)
        return future

    def send_staged(self):
        if self.futures:
            first = self.token + 1
            self.batches[first] = untracked((self.futures, self.objects))
            self.token += len(self.futures)
            self.futures, self.objects = _unwalked(), _unwalked()
            self._c.send_staged(first)

    def _refused_in_batch(self, first, futures, objects, k, outcome):
        """Object k of the batch was refused: it fails; those before it are in the stream and
        complete when durable; those after it were not sent, and go again (same futures)."""
        _settle_all(futures[k:k + 1], outcome)
        if k > 0:
            self.batches[first] = untracked((untracked(futures[:k]), untracked(objects[:k])))
            self._c.flush_async(first, k)
        for future, obj in zip(futures[k + 1:], objects[k + 1:]):
            try:
                self._c.stage_async(obj)
            except Exception as e:  # changed since it was first converted
                track_all([future])
                if not future.done():
                    future.set_exception(e)
                continue
            self._staged(future, obj)

    def drain(self):
        outcomes = self._c.drain_async(self.BATCHES_PER_TURN)
        for first, count, outcome in outcomes:
            futures, objects = self.batches.pop(first)
            refused = None
            if outcome is not None and outcome[0] == "objwire.proto":
                refused = _BATCH_INDEX.search(outcome[2])
            if refused is None:
                _settle_all(futures, outcome)
            else:
                self._refused_in_batch(first, futures, objects, int(refused.group(1)), outcome)
        if len(outcomes) == self.BATCHES_PER_TURN:
            self.loop.call_soon(self.drain)

    def stop(self):
        """On the loop: what is staged is sent, the descriptor no longer watched."""
        self.send_staged()
        self.loop.remove_reader(self.fd)

    def __del__(self):
        # Futures never settled (the connection dropped, its loop gone) go back to the
        # collector, which may then free what they hold in a cycle.
        for futures, _ in self.batches.values():
            track_all(futures)
        track_all(self.futures)


def send_async(conn, obj):
    """A future of the running loop, done when obj is durable (or with the error)."""
    loop = asyncio.get_running_loop()
    pending = conn._pending
    if pending is None or pending.loop is not loop:
        pending = conn._pending = Pending(conn._c, loop)
    return pending.add(obj)


class AsyncReader:
    """read()'s iterator for ``async for``: the waits run on an executor thread (the GIL
    released), so the loop never waits on the daemon."""

    def __init__(self, args, kwargs):
        self._args = args
        self._kwargs = kwargs
        self._reader = None
        self._batch = []
        self._done = False

    def __aiter__(self):
        return self

    async def __anext__(self):
        loop = asyncio.get_running_loop()
        if self._done:
            raise StopAsyncIteration
        if self._reader is None:
            from . import read
            self._reader = await loop.run_in_executor(None, lambda: read(*self._args, **self._kwargs))
        if not self._batch:
            try:
                self._batch = await loop.run_in_executor(None, self._reader._next_batch, 1024)
            except asyncio.CancelledError:
                self._reader.stop()
                raise
            if not self._batch:
                await self.aclose()
                raise StopAsyncIteration
            self._batch.reverse()
        return self._batch.pop()

    def stop(self):
        if self._reader is not None:
            self._reader.stop()

    async def aclose(self):
        self._done = True
        if self._reader is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._reader.close)
