"""The `events` workload in Python (docs/WORKLOADS.md, "`events`, exactly"): the same
events as the C++ generator, as dicts or as the Event dataclass. The templates are read from
docs/WORKLOADS.md itself, so the two cannot drift apart."""

import dataclasses
import pathlib
import re

_DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "WORKLOADS.md"
_MASK = (1 << 64) - 1


def _templates():
    text = _DOC.read_text()
    block = text.split("The templates:\n```\n", 1)[1].split("```", 1)[0]
    return [re.sub(r"^\s*\d+\s+", "", line) for line in block.splitlines() if line.strip()]


TEMPLATES = _templates()
LEVELS = ((5, "TRACE"), (20, "DEBUG"), (80, "INFO"), (95, "WARN"), (100, "ERROR"))


@dataclasses.dataclass
class Event:
    ts: int
    level: str
    host: str
    service: str
    msg: str
    user: str
    latency_ms: float


def events(count, seed=42, as_dataclass=False):
    """The first `count` events, as dicts in field order (or Event dataclasses)."""
    s = seed

    def nxt():
        nonlocal s
        s = (s + 0x9E3779B97F4A7C15) & _MASK
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    clock = 1_700_000_000_000_000
    for _ in range(count):
        r = nxt() % 100
        level = next(name for bound, name in LEVELS if r < bound)
        host = "host-%03d" % (nxt() % 200)
        service = "svc-%02d" % (nxt() % 30)
        parts = []
        for piece in re.split(r"(\{n\}|\{x\})", TEMPLATES[nxt() % 50]):
            if piece == "{n}":
                parts.append(str(nxt() % 100000))
            elif piece == "{x}":
                parts.append("%08x" % (nxt() & 0xFFFFFFFF))
            else:
                parts.append(piece)
        msg = "".join(parts)
        user = "%016x" % nxt()
        latency = (nxt() % 500000) / 1000.0
        fields = (clock, level, host, service, msg, user, latency)
        clock += nxt() % 1001
        if as_dataclass:
            yield Event(*fields)
        else:
            yield dict(zip(("ts", "level", "host", "service", "msg", "user", "latency_ms"), fields))
