#include "client/jsonl/raw_lines.hpp"

#include <cstdio>

#include "proto/utf8.hpp"

namespace objwire::client {

raw_line_reader::raw_line_reader(std::string type, std::string field)
    : type_(make_record_type(std::move(type), {std::move(field)})) {}

void raw_line_reader::continue_with(std::string_view text, bool) {
    text_ = text;
    pos_ = 0;
}

std::size_t first_invalid_utf8(std::string_view s) {
    // Only on a line already found invalid: each position tries the sequence lengths UTF-8 has.
    std::size_t i = 0;
    while (i < s.size()) {
        std::size_t len = 1;
        while (len <= 4 && (i + len > s.size() || !is_valid_utf8(s.substr(i, len))))
            ++len;
        if (len > 4) return i;
        i += len;
    }
    return s.size();
}

bool raw_line_reader::next(message& out) {
    error_.reset();
    if (pos_ >= text_.size()) return false;
    const std::size_t nl = text_.find('\n', pos_);
    const std::size_t end = nl == std::string_view::npos ? text_.size() : nl;
    const std::string_view line = text_.substr(pos_, end - pos_);
    pos_ = nl == std::string_view::npos ? end : nl + 1;
    ++line_;
    if (!is_valid_utf8(line)) {
        const std::size_t at = first_invalid_utf8(line);
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(line[at]));
        error_ = json_error{line_, at + 1,
                            std::string("invalid UTF-8: byte ") + hex +
                                " is not part of a valid UTF-8 sequence (--raw sends each line "
                                "as text, which must be UTF-8 encoded)"};
        return false;
    }
    auto& r = out.root.ensure<record>();
    r.type = type_;
    r.fields.resize(1);
    assign_text(r.fields[0].ensure<std::string>(), line);
    out.objects.clear();
    out.shared_keys.clear();
    return true;
}

}  // namespace objwire::client
