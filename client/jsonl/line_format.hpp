// What `objwire read` prints per object besides plain JSON lines (docs/CLI.md, "Output
// formats"): a line built from fields (--format, as kcat's -f), the envelope (--envelope: the
// object and where it is stored, as one JSON object) and the text of a `send --raw` record
// (--raw). Sans-I/O: it only appends to a string, so unit tests reach every rule.
//
//   line_format f;
//   if (!f.parse("%o\t%j", error)) usage(error);   // "unknown field %x in --format ..."
//   f.append(out, {offset, sender, time_ms, m});    // the line and its newline
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/value.hpp"

namespace objwire::client {

// One stored object and where it is stored.
struct stored_view {
    std::uint64_t offset = 0;
    std::string_view sender;
    std::uint64_t time_ms = 0;  // the stored block's time: milliseconds since the Unix epoch
    const message& value;
};

class line_format {
  public:
    // Compiles a --format text: %o offset, %s sender id, %T stored time (ms since the epoch),
    // %t record type name (empty for an object that is not a record), %j the object as one
    // line of JSON, %% a '%'; \t a tab, \n a newline, \\ a backslash. False, with `error`
    // naming the unknown field or escape, for anything else.
    bool parse(std::string_view spec, std::string& error);
    // {"offset":N,"sender":"...","time":T,"object":{...}}: one JSON object per line.
    static line_format envelope();
    // Appends the object's line and a newline.
    void append(std::string& out, const stored_view& s) const;

  private:
    enum class field { literal, offset, sender, sender_json, time, type, json };
    struct piece {
        field what = field::literal;
        std::string text;
    };
    static std::optional<field> field_of(char c);  // %c; none for an unknown one
    void add(field f, std::string_view text = {});
    std::vector<piece> pieces_;
};

// The record a message's root is (through a shared object too), or null.
const record* root_record(const message& m);

// The text of a `send --raw` record: the string field `field` of a record of type `type`
// (any type when empty); null for any other object.
const std::string* raw_text(const message& m, std::string_view type, std::string_view field);

}  // namespace objwire::client
