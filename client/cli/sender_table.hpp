// What `objwire senders` prints of a daemon's sender list (proto/control.hpp sender_list): an
// aligned table for people, or one JSON object per line for jq. No I/O.
#pragma once

#include <cstdint>
#include <string>

#include "proto/control.hpp"

namespace objwire::client {

// A time in milliseconds since the Unix epoch as ISO 8601 UTC, `2026-12-02T10:00:00.250Z`:
// the form `read --from @TIME` takes.
std::string format_utc_time(std::uint64_t ms);

// A header line, then a line per sender: SENDER, OBJECTS, FIRST, LAST (offsets of its oldest
// and newest object held) and LAST STORED, columns aligned. Objects sent without a sender id
// show as `(anonymous)`; an id is printed as it is.
std::string sender_table(const sender_list& l);

// Per sender: {"sender":"ID","objects":N,"first_offset":N,"last_offset":N,
// "last_time_ms":N,"last_time":"ISO 8601"} and a newline; the id JSON-escaped, "" for
// objects sent without one.
std::string sender_json_lines(const sender_list& l);

}  // namespace objwire::client
