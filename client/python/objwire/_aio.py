"""asyncio: send_async's futures and read_async's iterator over the extension."""

import asyncio
import re

from ._errors import error_for

_BATCH_INDEX = re.compile(r"batch\[(\d+)\]")


def _settle(future, outcome):
    if future.done():
        return
    if outcome is None:
        future.set_result(None)
    else:
        future.set_exception(error_for(*outcome))


def _copy_outcome(source, target):
    if target.done():
        return
    if source.cancelled():
        target.cancel()
    elif source.exception() is not None:
        target.set_exception(source.exception())
    else:
        target.set_result(None)


class Pending:
    """A connection's send_async futures, by token, on the loop of the first one.

    The objects started in one turn of the loop go to the library as one batch (its
    async_send_many: one job and one completion for all), at the end of the turn. The
    extension makes a descriptor readable when outcomes wait, without taking the GIL; the loop
    watches it and settles the futures, a bounded number of batches per turn so that its other
    callbacks run between them."""

    BATCHES_PER_TURN = 4

    def __init__(self, c, loop):
        self._c = c
        self.loop = loop
        self.futures = {}
        self.objects = {}  # kept until settled: a batch refused in its middle sends the rest again
        self.token = 0
        self.staged_from = None
        self.fd = c.async_fd()
        loop.add_reader(self.fd, self.drain)

    def add(self, obj):
        self._c.stage_async(obj)  # converted now: TypeError and refusals of the value raise here
        self.token += 1
        future = self.loop.create_future()
        self.futures[self.token] = future
        self.objects[self.token] = obj
        if self.staged_from is None:
            self.staged_from = self.token
            self.loop.call_soon(self.send_staged)
        return future

    def send_staged(self):
        if self.staged_from is not None:
            first, self.staged_from = self.staged_from, None
            self._c.send_staged(first)

    def _settle_range(self, first, count, outcome):
        for token in range(first, first + count):
            self.objects.pop(token, None)
            future = self.futures.pop(token, None)
            if future is not None:
                _settle(future, outcome)

    def drain(self):
        outcomes = self._c.drain_async(self.BATCHES_PER_TURN)
        for first, count, outcome in outcomes:
            refused = None
            if outcome is not None and outcome[0] == "objwire.proto":
                refused = _BATCH_INDEX.search(outcome[2])
            if refused is None:
                self._settle_range(first, count, outcome)
                continue
            # One object of the batch was refused: it fails; those before it are in the stream
            # and complete when durable; those after it were not sent, and go again.
            k = int(refused.group(1))
            self._settle_range(first + k, 1, outcome)
            if k > 0:
                self._c.flush_async(first, k)
            for token in range(first + k + 1, first + count):
                again = self.add(self.objects.pop(token))
                again.add_done_callback(lambda f, target=self.futures.pop(token): _copy_outcome(f, target))
        if len(outcomes) == self.BATCHES_PER_TURN:
            self.loop.call_soon(self.drain)

    def stop(self):
        """On the loop: what is staged is sent, the descriptor no longer watched."""
        self.send_staged()
        self.loop.remove_reader(self.fd)


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
