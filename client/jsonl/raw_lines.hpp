// `objwire send --raw` (docs/CLI.md, "Raw text lines"): each input line, without its newline,
// becomes a record of one string field - {"$type":"line","text":"..."} by default - whatever
// it holds: empty lines, a '\r' before the newline and a byte order mark are kept as text, so
// `read --raw` gives back the input byte for byte. A line that is not valid UTF-8 is a bad line
// (the wire's strings are UTF-8), reported with its line and the column of its first bad byte
// as the JSON reader reports one; nothing is replaced. Same interface as jsonl_reader, so the
// send pipeline reads either.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "client/jsonl/jsonl_reader.hpp"
#include "proto/value.hpp"

namespace objwire::client {

inline constexpr std::string_view default_raw_type = "line";
inline constexpr std::string_view default_raw_field = "text";

class raw_line_reader {
  public:
    raw_line_reader(std::string type, std::string field);

    // As jsonl_reader::next(): the next line as a record; false at the end of the text or at
    // a line that is not UTF-8 (error() set; the next call goes on after it).
    bool next(message& out);
    const std::optional<json_error>& error() const { return error_; }
    std::size_t line() const { return line_; }
    std::size_t offset() const { return pos_; }
    // As jsonl_reader::continue_with(): the next whole lines of the same input.
    void continue_with(std::string_view text, bool padded);
    // As jsonl_reader::skip_line(): a line the caller dropped counts; its number.
    std::size_t skip_line() { return ++line_; }

  private:
    record_type_ptr type_;
    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t line_ = 0;
    std::optional<json_error> error_;
};

// The byte index of the first byte of `s` that is not part of a valid UTF-8 sequence, or
// s.size() when all of it is valid.
std::size_t first_invalid_utf8(std::string_view s);

}  // namespace objwire::client
