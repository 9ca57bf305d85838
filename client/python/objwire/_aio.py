"""asyncio: the library's completions resolve futures through the loop's thread-safe call."""

import asyncio

from ._errors import error_for


def _settle(future, outcome):
    if future.done():
        return
    if outcome is None:
        future.set_result(None)
    else:
        future.set_exception(error_for(*outcome))


class Pending:
    """A connection's send_async futures, by token, on the loop of the first one. The
    extension makes a descriptor readable once per burst of outcomes; drain() settles them."""

    def __init__(self, c, loop):
        self.loop = loop
        self.futures = {}
        self.token = 0
        self._drain = c.drain_async
        self.fd = c.async_fd()
        loop.add_reader(self.fd, self.drain)

    def stop(self):
        """On the loop: the last outcomes settled, the descriptor no longer watched."""
        self.drain()
        self.loop.remove_reader(self.fd)

    # Outcomes settled per turn of the loop: a burst of 100,000 acknowledgements is settled
    # over many turns, and the loop's other callbacks (timers) run between them.
    BURST = 256

    def drain(self):
        outcomes = self._drain(self.BURST)
        for token, outcome in outcomes:
            future = self.futures.pop(token, None)
            if future is not None:
                _settle(future, outcome)
        if len(outcomes) == self.BURST:
            self.loop.call_soon(self.drain)


def send_async(conn, obj):
    """A future of the running loop, done when obj is durable (or with the error)."""
    loop = asyncio.get_running_loop()
    pending = conn._pending
    if pending is None or pending.loop is not loop:
        pending = conn._pending = Pending(conn._c, loop)
    pending.token += 1
    future = loop.create_future()
    pending.futures[pending.token] = future
    try:
        conn._c.send_async(obj, pending.token)
    except BaseException:
        del pending.futures[pending.token]
        raise
    return future


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
