// JSON lines -> messages: the reading side of proto/json_writer.hpp's mapping, used by
// `objwire send` and `objwire encode`. One message per line, parsed with simdjson straight
// from the caller's buffer (up to 64 KiB of lines at a time; a line the block cannot give
// exactly as reading it alone would is read alone, so results and errors never depend on the
// blocks); for any message m, reading to_json(m) gives canonical(m).
//
// What a line may hold:
// - Any JSON value is a valid root (an object, an array, a string, a number, true/false/null):
//   `42` is a message whose root is the integer 42. One value per line; text after it is an
//   error.
// - "$id" may be any key of its object (the writer puts it first): {"$type":"Node","$id":1,...}
//   and {"a":1,"$id":2} read as with "$id" first. The other markers come first among the
//   object's other keys: "$type" or "$value" (or "$bytes" / "$float"); "$ref", "$bytes",
//   "$float" and "$value" stand alone (beside "$id", if any; "$value" needs one, "$ref" takes
//   none). A key that starts with a single '$' anywhere else is an error; "$$x" reads as the
//   key "$x". {"$id":N} alone is an empty map.
// - "$id" is an integer from 0 to 2^31-1, unique in its line; a "$ref" may point at an object
//   defined earlier or later in the same line. Objects are numbered in canonical() order
//   whatever their ids, so ids need not be 0, 1, 2...
// - Integers must fit in int64; a number with '.' or an exponent is a double. Strings must be
//   valid UTF-8 (simdjson validates the whole line).
// - Arrays and objects nest at most 1024 deep (the root included): the reader's own bound.
//   What objwired accepts is its limits.max_depth (64 by default), which the encoder checks.
// - Lines end in "\n" or "\r\n"; blank lines (only spaces, tabs, \r) are skipped. A UTF-8
//   byte order mark at the start of the text is skipped.
//
// Records of the same name and field names share one record_type_ptr for the reader's
// lifetime (up to 65,536 distinct shapes, after which the cache starts over).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "proto/value.hpp"

namespace objwire {

// Where and what: `line` and `column` are 1-based, column counting bytes in the line.
// `message` says what is wrong and how to fix it, e.g.
// `unknown $ref 7 (no object with "$id": 7 in this line)`.
struct json_error {
    std::size_t line = 0, column = 0;
    std::string message;
};

class jsonl_reader {
  public:
    // Parses JSON lines from an in-memory buffer (the caller reads files in blocks or maps
    // them). `text` must stay alive and unchanged while the reader is used. A final line
    // without a newline is read too; the caller that feeds blocks should pass whole lines
    // and number them with `first_line_number`.
    explicit jsonl_reader(std::string_view text, std::size_t first_line_number = 1);
    ~jsonl_reader();
    jsonl_reader(jsonl_reader&&) noexcept;
    jsonl_reader& operator=(jsonl_reader&&) noexcept;

    // Reads the next message into `out`, reusing its storage. Returns false at the end of the
    // text, or on an error: then error() is set and `out` holds unspecified contents. Calling
    // next() after an error clears it and continues with the following line (--on-error skip).
    bool next(message& out);

    const std::optional<json_error>& error() const;

    // Line number of the last message returned (or of the error).
    std::size_t line() const;

    // Bytes of the text read so far: the end of the last line read (its newline included).
    std::size_t offset() const;

    // Bytes after a text given to continue_with(..., padded = true) that the reader may read
    // (never use): a text with them is parsed in blocks to its very end.
    static constexpr std::size_t padding = 64;

    // Goes on with the next part of the same input (a caller reading it in blocks): `text`
    // holds whole lines (the last one may lack its newline only at the input's end), numbered
    // from the line after the last one read; kept caches make this cheap. `padded`: `padding`
    // bytes after `text` are readable. A reader made with an empty text takes its input this
    // way from the start (a byte order mark is skipped in the first text only).
    void continue_with(std::string_view text, bool padded);

    // A line the caller dropped instead of giving it (too long to send) counts as read: the
    // next text's lines are numbered after it. Returns its number (line() then gives it too).
    std::size_t skip_line();

    // Calls `seen` (inside next(), on the reader's thread) for each record shape - name and
    // field names - the reader meets for the first time: once per shape, or again after the
    // shape cache started over. Costs nothing per record of a shape already seen.
    void on_new_record_type(std::function<void(const record_type&)> seen);

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace objwire
