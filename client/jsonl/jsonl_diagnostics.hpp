// What the JSON reader says about a bad line: where in the line the fault is and what to do
// about it. simdjson reports an error code and, for some, no position; these find the place by
// scanning the line again (only ever for a line that failed) and word the message.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace objwire::jsonl_detail {

// An error found in a line: `offset` of the byte it is about (npos: the line as a whole).
struct line_error {
    std::size_t offset = std::string_view::npos;
    std::string message;
};

// For the errors that simdjson reports without a usable position - a truncated line, text
// after the value, invalid UTF-8, an unclosed string, an unescaped control character - the
// place and the message found by scanning `line`; nullopt for any other error.
std::optional<line_error> locate_line_error(simdjson::error_code e, std::string_view line);

// The message for any other error, reported at the token where simdjson stopped.
std::string token_error_message(simdjson::error_code e);

// Text after the root value.
std::string trailing_text_message();

// Arrays and objects nested deeper than the reader's bound `max_depth`.
std::string too_deep_message(std::size_t max_depth);

// An integer of 19 or more digits (`digits`, its sign included) beyond int64.
std::string integer_out_of_range_message(std::string_view digits);

// "an array", "a string"...: a JSON type in a sentence.
const char* json_type_name(simdjson::ondemand::json_type t);

}  // namespace objwire::jsonl_detail
