"""objwire's errors as exceptions: every one carries the library's code and text.

The library reports errors as codes in three categories (docs/LIBRARY.md, "Errors"):
``objwire.proto`` (the protocol, a refusal), ``objwire.client`` (the library's own) and
``objwire.typed`` (reading into a type). Each becomes one exception class below, whose
``category``, ``code`` (the code's name, e.g. ``"string_too_long"``), ``value`` (its number)
and ``text`` (``last_error()``: what people read) say what happened.
"""

import builtins

# proto/errors.hpp's proto_errc, by value (the values are wire values and never change).
PROTO_CODES = {
    1: "truncated", 2: "bad_checksum", 3: "frame_too_large", 4: "unknown_tag",
    5: "bad_varint", 6: "invalid_utf8", 7: "depth_exceeded", 8: "string_too_long",
    9: "too_many_elements", 10: "unknown_reference", 11: "unknown_object",
    12: "table_budget_exceeded", 13: "bad_sequence", 14: "trailing_bytes",
    15: "unknown_frame_kind", 16: "bad_codec", 17: "decompress_failed", 18: "bad_magic",
    19: "unsupported_version", 20: "bad_handshake", 21: "bad_reserved",
    22: "unexpected_frame", 23: "message_too_large", 24: "bad_record", 25: "bad_message",
    26: "unauthorized", 27: "sender_busy", 28: "not_available",
    29: "reference_bytes_exceeded", 30: "bad_columns", 31: "sender_fenced",
    32: "integer_out_of_range", 33: "too_many_connections", 34: "duplicate_field",
    35: "store_limit_exceeded", 36: "not_found", 37: "past_end",
}
# include/objwire/errors.hpp's client_errc.
CLIENT_CODES = {
    1: "connect_failed", 2: "timed_out", 3: "connection_lost", 4: "not_open",
    5: "input_mismatch", 6: "invalid_options", 7: "too_many_in_flight", 8: "interrupted",
}


class Error(Exception):
    """Every objwire error: ``category``, ``code``, ``value`` and ``text``."""

    def __init__(self, text, category="", code="", value=0):
        super().__init__(text)
        self.text = text
        self.category = category
        self.code = code
        self.value = value


class RefusedError(Error):
    """The protocol refused: a message over the daemon's limits or not encodable (its text
    names the field: ``message refused: Event.msg: string is not valid UTF-8``), a token the
    daemon does not accept, a peer that is not objwired."""


class ConnectError(Error, builtins.ConnectionError):
    """The daemon could not be reached (connect_failed)."""


class ConnectionLostError(Error, builtins.ConnectionError):
    """The connection broke and could not be resumed within resume.retry_for."""


class TimeoutError(Error, builtins.TimeoutError):  # noqa: A001 - objwire.TimeoutError
    """A wait ran out: flush(timeout), a send timeout (timed_out)."""


class NotOpenError(Error):
    """The connection is not open (closed, or failed)."""


class InputMismatchError(Error):
    """A rerun's objects are not those its sender_id stored."""


class OptionsError(Error, builtins.ValueError):
    """An option out of range or unknown; the text names the key as it was given."""


class TooManyInFlightError(Error):
    """flow.max_async_sends asynchronous sends are waiting: this one was not queued."""


class InterruptedError(Error, builtins.InterruptedError):  # noqa: A001
    """interrupt() (or Ctrl-C) ended a wait for the daemon."""


class ReadError(Error):
    """A stored object could not be read (into its dataclass)."""


class GapWarning(UserWarning):
    """The daemon reported offsets lost to damage or retention (as ``objwire read`` does on
    stderr); the objects around them are read."""


_CLIENT_CLASSES = {
    "connect_failed": ConnectError, "timed_out": TimeoutError,
    "connection_lost": ConnectionLostError, "not_open": NotOpenError,
    "input_mismatch": InputMismatchError, "invalid_options": OptionsError,
    "too_many_in_flight": TooManyInFlightError, "interrupted": InterruptedError,
}


def error_for(category, value, text):
    """The exception for a library error code (called by the extension)."""
    if category == "objwire.client":
        code = CLIENT_CODES.get(value, str(value))
        return _CLIENT_CLASSES.get(code, Error)(text, category, code, value)
    if category == "objwire.proto":
        return RefusedError(text, category, PROTO_CODES.get(value, str(value)), value)
    if category == "objwire.typed":
        return ReadError(text, category, str(value), value)
    return ConnectionLostError(text, category, str(value), value)
