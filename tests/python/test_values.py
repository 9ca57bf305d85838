"""Round trips of every value type and of dataclasses; schema evolution; refusals."""

import dataclasses
import datetime as dt
import enum
import json
from typing import List, Optional

import pytest

import objwire

UTC = dt.timezone.utc


def round_trip(daemon, objs, **read_kwargs):
    with objwire.connect(to=daemon.to) as conn:
        for o in objs:
            conn.send(o)
    return [m.obj for m in objwire.read(to=daemon.to, **read_kwargs)]


def test_every_value_type_round_trips_with_its_type(daemon):
    values = [
        None, True, False, 0, -1, 2**63 - 1, -2**63, 1.5, -0.0, float("inf"), "", "héllo ✓",
        b"", b"\x00\xffbytes", [], [1, "two", 3.0, None, [True]], {},
        {"a": 1, "nested": {"list": [1, 2, {"x": b"y"}]}, "": None},
    ]
    back = round_trip(daemon, values)
    assert back == values
    assert [type(v) for v in back] == [type(v) for v in values]


def test_other_python_types_send_as_their_wire_form(daemon):
    class Color(enum.Enum):
        RED = 1

    when = dt.datetime(2026, 12, 7, 12, 0, 0, 123456, tzinfo=UTC)
    back = round_trip(daemon, [(1, 2), bytearray(b"ab"), memoryview(b"cd"), Color.RED, when])
    assert back == [[1, 2], b"ab", b"cd", "RED", 1796644800123456000]


@dataclasses.dataclass
class Point:
    x: int
    y: int


@dataclasses.dataclass
class Route:
    name: str
    stops: List[Point]
    grid: List[List[int]]
    started: dt.datetime
    ended: Optional[dt.datetime] = None
    note: Optional[str] = None


def test_a_dataclass_with_nested_lists_optionals_and_datetimes_round_trips(daemon):
    start = dt.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    routes = [
        Route("r1", [Point(1, 2), Point(3, 4)], [[1], [2, 3]], start),
        Route("r2", [], [], start, start + dt.timedelta(hours=1), "late"),
    ]
    back = round_trip(daemon, routes, type=Route)
    assert back == routes
    assert back[1].ended.tzinfo is not None and isinstance(back[0].stops[0], Point)


def test_a_record_reads_as_record_without_its_dataclass_and_as_the_cli_prints_it(daemon):
    back = round_trip(daemon, [Point(1, 2)])
    assert back == [objwire.Record("Point", {"x": 1, "y": 2})] and back[0].type == "Point"
    out = daemon.cli("read")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"$type": "Point", "x": 1, "y": 2}


def test_fields_added_and_removed_read_as_the_evolution_rules_say(daemon):
    @dataclasses.dataclass
    class Trade:  # the sender's, newer: `venue` added, `qty` still there
        sym: str
        px: float
        qty: int
        venue: str

    Trade.__objwire_name__ = "Trade"
    with objwire.connect(to=daemon.to) as conn:
        conn.send(Trade("ACME", 12.5, 100, "XNYS"))

    @dataclasses.dataclass
    class Trade:  # noqa: F811 - the reader's: qty removed, `side` added with a default
        sym: str
        px: float
        side: str = "buy"

    [m] = list(objwire.read(to=daemon.to, type=Trade))
    assert m.obj == Trade("ACME", 12.5, "buy")  # venue and qty skipped, side its default


def test_a_record_of_another_name_fails_or_is_skipped(daemon):
    with objwire.connect(to=daemon.to) as conn:
        conn.send(Point(1, 2))
        conn.send({"not": "a point"})
    with pytest.raises(objwire.ReadError, match=r"a record of Point, found dict \(message at offset 1\)"):
        list(objwire.read(to=daemon.to, type=Point))
    assert [m.obj for m in objwire.read(to=daemon.to, type=Point, other="skip")] == [Point(1, 2)]


def test_refusals_name_the_field_and_carry_the_code(daemon):
    @dataclasses.dataclass
    class Tagged:
        tags: list

    with objwire.connect(to=daemon.to) as conn:
        with pytest.raises(objwire.RefusedError) as e:
            conn.send(Tagged(["ok", "bad \udc80"]))
        assert e.value.code == "invalid_utf8"
        assert "message refused: field .tags[1]: string is not valid UTF-8" in str(e.value)
        with pytest.raises(objwire.RefusedError) as e:
            conn.send({"n": 2**63})
        assert e.value.code == "integer_out_of_range" and '["n"]' in e.value.text
        with pytest.raises(TypeError, match=r'\["s"\]: objwire has no wire form for a set'):
            conn.send({"s": {1, 2}})
        with pytest.raises(TypeError, match="naive datetime"):
            conn.send(dt.datetime(2026, 1, 1))
        with pytest.raises(TypeError, match="a dict key of type int"):
            conn.send({1: "x"})
        cyclic = []
        cyclic.append(cyclic)
        with pytest.raises(objwire.RefusedError, match="nested deeper than 1000"):
            conn.send(cyclic)
        conn.send("still usable")  # a refused object leaves the connection open
    assert [m.obj for m in objwire.read(to=daemon.to)] == ["still usable"]


def test_the_daemon_refusal_of_a_too_deep_object_names_its_path(daemon):
    deep = "leaf"
    for _ in range(70):
        deep = [deep]
    with objwire.connect(to=daemon.to) as conn:
        with pytest.raises(objwire.RefusedError) as e:
            conn.send(Point(1, deep))
        assert e.value.code == "depth_exceeded"
        assert e.value.text.startswith("message refused: Point.y[0][0]")
