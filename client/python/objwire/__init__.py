"""objwire for Python: send Python objects to objwired and read them back.

A binding of objwire's C++ client library (docs/PYTHON.md): every rule of the library -
resume after a broken connection, exactly-once reruns under a sender_id, the daemon's credit,
compression chosen by the link, the decoder's limits - holds here as it does in C++.

    import objwire
    with objwire.connect(to="127.0.0.1:7878", sender_id="ingest") as conn:
        conn.send({"user": "ada", "n": 1})
    for m in objwire.read(to="127.0.0.1:7878"):
        print(m.offset, m.obj)
"""

import datetime as _dt
import threading as _threading
import warnings as _warnings
from typing import Any, NamedTuple

from . import _objwire
from ._errors import (ConnectError, ConnectionLostError, Error, GapWarning,  # noqa: F401
                      InputMismatchError, InterruptedError, NotOpenError, OptionsError,
                      ReadError, RefusedError, TimeoutError, TooManyInFlightError)
from ._types import record_name, record_types

__all__ = [
    "connect", "read", "read_async", "Connection", "Reader", "Message", "Record",
    "check_options", "Error", "RefusedError", "ConnectError", "ConnectionLostError",
    "TimeoutError", "NotOpenError", "InputMismatchError", "OptionsError",
    "TooManyInFlightError", "InterruptedError", "ReadError", "GapError", "GapWarning",
]


class GapError(Error):
    """read(on_gap="raise"): the daemon reported offsets lost (``first``, ``end``)."""

    def __init__(self, first, end):
        super().__init__(f"gap: offsets {first} to {end - 1} are lost", "objwire.read", "gap", 0)
        self.first = first
        self.end = end


class Record(dict):
    """A stored record read without a dataclass for its name: its fields as a dict, its
    record name as ``type``."""

    __slots__ = ("type",)

    def __init__(self, type, fields=()):  # noqa: A002 - the record's type name
        super().__init__(fields)
        self.type = type

    def __repr__(self):
        return f"Record({self.type!r}, {dict.__repr__(self)})"

    def __eq__(self, other):
        if isinstance(other, Record):
            return self.type == other.type and dict.__eq__(self, other)
        return dict.__eq__(self, other)

    __hash__ = None


_objwire._set_record_class(Record)


class Message(NamedTuple):
    """A stored object: its journal offset, the sender id that stored it, when its block was
    stored (a UTC datetime) and the object as Python values."""

    offset: int
    sender: str
    time: _dt.datetime
    obj: Any


def _option_text(name, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, _dt.timedelta):
        return f"{round(value.total_seconds() * 1_000_000)}us"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise OptionsError(f"option {name}: {value!r} is not a str, int, float, bool or timedelta",
                       "objwire.client", "invalid_options", 6)


def _option_pairs(options):
    return [(name, _option_text(name, v)) for name, v in options.items() if v is not None]


def check_options(**options):
    """Checks options as connect() and read() take them (objwire.toml's keys: ``batch_linger``
    or ``linger`` for batch.linger); raises OptionsError naming the key."""
    _objwire.check_options(_option_pairs(options))


class Connection:
    """A connection to objwired that sends objects (connect() makes one). Safe to use from
    several threads; the GIL is released while it encodes, writes and waits."""

    def __init__(self, options, open_retry=0.0, rerun=True):
        self._c = _objwire._Connection(_option_pairs(options))
        self._pending = None  # send_async's futures (objwire/_aio.py)
        self._c.open(float(open_retry), bool(rerun and options.get("sender_id")))

    def send(self, obj):
        """Sends one object: dict, list, tuple, str, int, float, bool, None, bytes, an aware
        datetime, an Enum (by name) or a dataclass (a record). Returns once it is in the
        stream (batched, see flush); raises RefusedError naming the field it refuses."""
        self._c.send(obj)

    def send_many(self, objects, batch=1024):
        """Sends every object of an iterable, in order; returns how many."""
        return self._c.send_many(objects, batch)

    def flush(self, timeout=None):
        """Waits until every object sent so far is acknowledged as durable; raises
        objwire.TimeoutError after ``timeout`` seconds (the objects stay in the stream)."""
        self._c.flush(-1.0 if timeout is None else float(timeout))

    def close(self):
        """Sends what is left, waits for every acknowledgement and the daemon's goodbye."""
        pending = self._pending
        if pending is not None and _running_loop() is pending.loop:
            pending.send_staged()  # started on this loop and not yet handed to the library
        try:
            self._c.close()
        finally:
            if pending is not None:  # the futures settle on their loop
                self._pending = None
                try:
                    pending.loop.call_soon_threadsafe(pending.stop)
                except RuntimeError:  # that loop is closed
                    pass

    async def close_async(self):
        """close() for asyncio: waits on an executor thread, not on the loop."""
        import asyncio
        if self._pending is not None:
            self._pending.send_staged()
        await asyncio.get_running_loop().run_in_executor(None, self.close)

    def interrupt(self):
        """Ends the connection's waits for the daemon (from any thread)."""
        self._c.interrupt()

    def send_async(self, obj):
        """An asyncio future of the running loop, done once ``obj`` is acknowledged as
        durable (or with the error). Queued at once: the loop never waits on the daemon. At
        most flow.max_async_sends (100,000) may wait: past it, TooManyInFlightError."""
        pending = self._pending  # the common case first: no import, one call
        if pending is not None and pending.loop is pending.running_loop():
            return pending.add(obj)
        from ._aio import send_async
        return send_async(self, obj)

    def set_send_timeout(self, seconds):
        """How long a send_async may wait for its acknowledgement (0: as long as it lives)."""
        self._c.set_send_timeout(float(seconds))

    @property
    def sender_id(self):
        return self._c.sender_id()

    @property
    def stored_objects(self):
        """At open: how many objects this sender_id had stored (a rerun skips them)."""
        return self._c.stored_objects()

    @property
    def skipped_objects(self):
        """Objects a rerun took as already stored and did not send again."""
        return self._c.skipped_objects()

    @property
    def unacknowledged(self):
        return self._c.unacknowledged()

    @property
    def is_open(self):
        return self._c.is_open()

    def stats(self):
        return self._c.stats()

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        if error is None:
            self.close()
            return
        # Leaving on an exception: what was sent is still delivered, but a second Ctrl-C or
        # a dead daemon does not hold the exception back.
        if isinstance(error, KeyboardInterrupt):
            self._c.interrupt()
        try:
            self.close()
        except Error:
            pass


def connect(to="127.0.0.1:7878", sender_id=None, *, open_retry=0.0, rerun=True, **options):
    """Opens a connection to the objwired at ``to``.

    ``sender_id``: the stream's stable id - a broken connection resumes under it, and a rerun
    of the same objects under it (``rerun=True``) sends only those the daemon does not hold.
    ``open_retry``: seconds to keep trying to open while the daemon cannot be reached (once
    open, a broken connection is resumed for ``retry_for``, objwire.toml's resume.retry_for).
    ``options``: objwire.toml's keys, as ``batch_linger="5ms"`` (or ``linger``, or
    ``**{"batch.linger": "5ms"}``), checked by the library's settings loader.
    """
    return Connection(dict(options, to=to, sender_id=sender_id), open_retry, rerun)


def _since_ms(since):
    if since is None:
        return 0
    if isinstance(since, _dt.timedelta):
        since = _dt.datetime.now(_dt.timezone.utc) - since
    if isinstance(since, _dt.datetime):
        if since.utcoffset() is None:
            raise ValueError("since: a naive datetime (no tzinfo): give it one, e.g. timezone.utc")
        return max(1, int(since.timestamp() * 1000))
    raise TypeError("since takes a datetime or a timedelta back from now")


def _running_loop():
    import asyncio
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


class Reader:
    """Stored messages, in order, as an iterator of Message (read() makes one). A context
    manager; stop() from another thread ends a follower's wait within 200 ms."""

    def __init__(self, options, where, types, other, on_gap):
        self._types = record_types(types)
        self._names = frozenset(self._types)
        self._other = other
        self._on_gap = on_gap
        self._gaps_told = 0
        self._time = (None, None)  # (ms, datetime): the objects of a block share their time
        self._r = _objwire._Reader(_option_pairs(options), where, self._types)
        self._r.open()
        self._lock = _threading.Lock()

    def _message(self, raw):
        offset, sender, time_ms, obj = raw
        if self._names and not (isinstance(obj, tuple(c for c, _, _ in self._types.values()))):
            if self._other == "fail":
                found = f"a record {obj.type}" if isinstance(obj, Record) else type(obj).__name__
                raise ReadError(f"a record of {', '.join(sorted(self._names))}, found {found} "
                                f"(message at offset {offset})", "objwire.typed", "wrong_record", 0)
            return None
        if self._time[0] != time_ms:
            self._time = (time_ms, _EPOCH + _dt.timedelta(milliseconds=time_ms))
        return Message(offset, sender, self._time[1], obj)

    def _tell_gaps(self):
        gaps = self._r.gaps()
        for first, end in gaps[self._gaps_told:]:
            self._gaps_told += 1
            if self._on_gap == "raise":
                raise GapError(first, end)
            _warnings.warn(GapWarning(f"gap: offsets {first} to {end - 1} are lost"), stacklevel=3)

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            raw = self._r.next()
            self._tell_gaps()
            if raw is None:
                raise StopIteration
            m = self._message(raw)
            if m is not None:
                return m

    def _next_batch(self, most):
        """Messages that need no further wait after the first (read_async)."""
        out = []
        while not out:
            raws = self._r.next_batch(most)
            self._tell_gaps()
            if not raws:
                return out
            out = [m for m in map(self._message, raws) if m is not None]
        return out

    def stop(self):
        """Ends the read (from any thread): a waiting next() returns, the iteration ends."""
        self._r.stop()

    def ack(self, next_offset=None):
        """A cursor reader: every object below next_offset (default: all handed out) is done."""
        self._r.ack(self._r.resume_at() if next_offset is None else next_offset)

    @property
    def gaps(self):
        """[(first, end)] offsets the daemon reported lost, in order."""
        return self._r.gaps()

    @property
    def resume_at(self):
        return self._r.resume_at()

    def close(self):
        """Ends the read; a cursor is stored at what was handed out."""
        self._r.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _where(from_, since, follow, sender, cursor, last):
    where = {"follow": bool(follow)}
    if from_ == "end":
        where["at_end"] = True
    elif from_ not in (None, "start"):
        where["from"] = int(from_)
    if since is not None:
        where["since_ms"] = _since_ms(since)
    if last is not None:
        where["last"] = int(last)
    if sender is not None:
        where["sender"] = sender
    if cursor is not None:
        where["cursor"] = cursor
    return where


def read(to="127.0.0.1:7878", sender=None, from_=None, since=None, follow=False, cursor=None,
         type=None, *, last=None, other="fail", on_gap="warn", **options):  # noqa: A002
    """Reads stored objects back: an iterator of Message.

    ``from_``: an offset, "start" or "end"; ``since``: a datetime, or a timedelta back from
    now; ``last``: the last N objects; ``sender``: one sender id's objects. ``follow``: wait
    for new objects after the stored ones (reconnecting as ``objwire read --follow`` does).
    ``cursor``: a named durable cursor - the read starts where it was left, and the reader
    tells the daemon what it handed out (each next() counts the ones before as done).
    ``type``: a dataclass (or several) that records of its name read into; other messages
    raise ReadError (``other="fail"``) or are passed over (``other="skip"``).
    Gaps (offsets the daemon lost) are warned as GapWarning, or raised (``on_gap="raise"``).
    """
    if other not in ("fail", "skip") or on_gap not in ("warn", "raise"):
        raise ValueError('other is "fail" or "skip", on_gap "warn" or "raise"')
    return Reader(dict(options, to=to), _where(from_, since, follow, sender, cursor, last),
                  type, other, on_gap)


def read_async(*args, **kwargs):
    """read() for asyncio: ``async for m in objwire.read_async(...)``."""
    from ._aio import AsyncReader
    return AsyncReader(args, kwargs)
