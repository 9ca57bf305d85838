// The JSON text form of a message: one line of JSON per message, used by the CLI (`objwire
// read`, the daemon's JSON-lines sink) and read back by client/jsonl/jsonl_reader. Sans-I/O: it
// only appends to a string.
//
// Mapping (the reader accepts exactly this, so read(to_json(m)) == canonical(m)):
//   null, true/false         as JSON
//   int64                    a JSON integer
//   double                   shortest round-trip text, always with '.' or an exponent
//                            (1.0 -> 1.0); NaN and infinities, which JSON lacks, as
//                            {"$float":"nan"}, {"$float":"inf"}, {"$float":"-inf"}
//   string                   UTF-8; only '"', '\\' and control characters are escaped
//                            (\n, \r, \t, the rest as \u00XX)
//   bytes                    {"$bytes":"<standard base64 with padding>"}
//   list                     a JSON array
//   map                      a JSON object, keys in order
//   record                   {"$type":"Name","field":value,...}, fields in type order
//   object_ref               the first time an object is met (depth first, fields in order)
//                            it is written inline with "$id": N as its first key, N being its
//                            index in canonical() order: {"$id":0,"$type":"Point",...} for a
//                            record, {"$id":0,"k":...} for a map, {"$id":0,"$value":<v>} for
//                            anything else; every later occurrence, cycles included, is
//                            {"$ref":N}.
//   lazy value               expanded, with what it holds (proto/lazy_value.hpp), under the
//                            given limits and a budget of max_frame_bytes raw bytes per
//                            message; one that fails is {"$lazy_error":"<proto_errc name>"}
//                            (no reader accepts it) and append_json returns the error. The
//                            reader gives back the expanded value, not a lazy one.
// A map key or record field name that starts with '$' is written with the '$' doubled ("$x"
// -> "$$x"), so user data never collides with the markers above.
//
// Not checked: strings are assumed to be valid UTF-8 (the decoder guarantees it for received
// values); a record whose field count differs from its type's is written with its type's
// field names, missing values as null, extra values dropped; a record without a type is
// written as {"$type":""}.
#pragma once

#include <string>
#include <string_view>
#include <system_error>

#include "proto/limits.hpp"
#include "proto/value.hpp"

namespace objwire {

// Appends `m` as one line of JSON, without a trailing newline, to `out`. The error is the first
// lazy value that did not expand (the line is written all the same).
std::error_code append_json(const message& m, std::string& out, const decoder_limits& limits = {});

// `m` as one line of JSON, without a trailing newline.
std::string to_json(const message& m);

// Appends `s` as a JSON string literal, quotes included, escaped as above: the one JSON
// string escaper (the workload generators write their JSON text with it too).
void append_json_string(std::string& out, std::string_view s);

}  // namespace objwire
