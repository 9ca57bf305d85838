// The JSON-lines reader (client/jsonl/jsonl_reader.hpp): lines and blocks of lines, and how errors
// are reported. Values are read in client/jsonl/jsonl_values.cpp, objects in
// client/jsonl/jsonl_objects.cpp.
#include "client/jsonl/jsonl_reader.hpp"

#include <string.h>  // memrchr

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "client/jsonl/jsonl_diagnostics.hpp"
#include "client/jsonl/jsonl_reader_impl.hpp"

namespace objwire {

bool jsonl_reader::impl::next(message& out) {
    error_.reset();
    while (pos_ < text_.size()) {
        if (pos_ >= block_end_) start_block();
        if (streaming_) {
            if (next_in_block(out)) return true;
            continue;  // the block is done, or its rest goes line by line
        }
        const char* begin = text_.data() + pos_;
        std::size_t rest = text_.size() - pos_;
        const auto* nl = static_cast<const char*>(std::memchr(begin, '\n', rest));
        std::size_t size = nl ? static_cast<std::size_t>(nl - begin) : rest;
        pos_ += nl ? size + 1 : size;
        std::size_t number = next_line_++;
        if (size > 0 && begin[size - 1] == '\r') --size;
        column_bias_ = 0;
        if (input_start_ && begin == text_.data() && size >= 3 &&
            std::memcmp(begin, "\xEF\xBB\xBF", 3) == 0) {
            begin += 3;  // a UTF-8 byte order mark at the start of the text
            size -= 3;
            column_bias_ = 3;
        }
        if (size == 0) continue;
        switch (parse_line({begin, size}, out)) {
            case outcome::blank:
                continue;
            case outcome::ok:
                line_ = number;
                return true;
            case outcome::failed:
                line_ = number;
                error_ = json_error{number, err_column_ + column_bias_, std::move(err_message_)};
                err_message_.clear();
                return false;
        }
    }
    return false;
}

// Starts the block of whole lines at pos_: up to block_bytes, ending in a newline, with
// SIMDJSON_PADDING bytes of the text after it (simdjson reads past the end). Where there is no
// such block (at the byte order mark, a line longer than a block, the last lines of the text),
// or stage 1 finds anything wrong in it (invalid UTF-8, an unclosed string...), block_end_
// says how far to read line by line instead.
void jsonl_reader::impl::start_block() {
    streaming_ = false;
    const std::size_t size = text_.size();
    if (size + padding_ - pos_ <= simdjson::SIMDJSON_PADDING) {
        block_end_ = size;
        return;
    }
    block_end_ = pos_ + 1;  // unless a block starts: the next line alone
    if (input_start_ && pos_ == 0 && size >= 3 && std::memcmp(text_.data(), "\xEF\xBB\xBF", 3) == 0)
        return;
    const char* begin = text_.data() + pos_;
    const std::size_t limit =
        std::min(block_bytes, size + padding_ - simdjson::SIMDJSON_PADDING - pos_);
    const auto* last_nl = static_cast<const char*>(::memrchr(begin, '\n', limit));
    if (last_nl == nullptr) return;
    const auto len = static_cast<std::size_t>(last_nl + 1 - begin);
    block_end_ = pos_ + len;
    if (block_parser_.iterate_many(begin, len, block_bytes).get(stream_)) return;
    block_doc_ = stream_.begin();
    // A document cut off at the end of the block is dropped from the stream (it would look
    // like the end of the line before it): then the block is read line by line.
    if (block_doc_.error() && block_doc_.error() != simdjson::EMPTY) return;
    if (stream_.truncated_bytes() != 0) return;
    streaming_ = true;
}

// The next message from the block, true; false when the block is done or the next line must
// be parsed alone (streaming_ is then false). A document is taken only if it is the line's
// whole content: it starts at the line's first non-blank byte, it is an object or an array
// (a scalar document's getters differ in a stream), and the next token after it is past the
// line's newline. A line read this way gives what parsing it alone gives; one that fails here,
// for whatever reason, is parsed again alone, which finds and reports its error.
bool jsonl_reader::impl::next_in_block(message& out) {
    while (pos_ < block_end_) {
        const char* begin = text_.data() + pos_;
        const auto* nl = static_cast<const char*>(std::memchr(begin, '\n', block_end_ - pos_));
        const auto size = static_cast<std::size_t>(nl - begin);
        std::size_t first = 0;
        while (first < size &&
               (begin[first] == ' ' || begin[first] == '\t' || begin[first] == '\r'))
            ++first;
        if (first == size) {  // blank
            pos_ += size + 1;
            ++next_line_;
            continue;
        }
        if (!(block_doc_ != stream_.end())) break;
        od::document_reference ref;
        if ((*block_doc_).get(ref)) break;
        od::document& doc = ref;
        const char* start = document_end::next_token(doc);
        if (start != begin + first || (*start != '{' && *start != '[')) break;
        begin_line(begin, size, out);
        quiet_ = true;
        // As parse_root(), whose type() the first byte has answered already.
        od::object o;
        od::array a;
        bool ok = *start == '{' ? !doc.get_object().get(o) && parse_object(o, out.root)
                                : !doc.get_array().get(a) && parse_array(a, out.root);
        ok = ok && document_end::next_token(doc) > nl && finish_line(out);
        quiet_ = false;
        if (!ok) break;
        pos_ += size + 1;
        line_ = next_line_++;
        ++block_doc_;
        return true;
    }
    streaming_ = false;
    return false;
}

void jsonl_reader::impl::reset_ids() {
    for (auto id : used_dense_ids_)
        dense_ids_[id] = 0;
    used_dense_ids_.clear();
    if (!sparse_ids_.empty()) sparse_ids_.clear();
}

// The reader's state for a new line at `base` (`size` bytes) read into `out`.
void jsonl_reader::impl::begin_line(const char* base, std::size_t size, message& out) {
    base_ = base;
    line_size_ = size;
    out_ = &out;
    object_count_ = 0;
    reset_ids();
    pending_.clear();
    renumber_ = false;
    record_depth_ = 0;
    depth_ = 0;
    if (types_.size() >= max_interned_types) {
        // Start over rather than grow without bound; descriptors handed out stay valid.
        types_.clear();
        known_types_.clear();
        last_known_ = nullptr;
    }
}

jsonl_reader::impl::outcome jsonl_reader::impl::parse_line(std::string_view line, message& out) {
    // simdjson reads up to SIMDJSON_PADDING bytes past the end; the following lines serve as
    // padding, only a line near the end of the text is copied.
    std::size_t available =
        static_cast<std::size_t>(text_.data() + text_.size() + padding_ - line.data());
    simdjson::padded_string_view view;
    if (available >= line.size() + simdjson::SIMDJSON_PADDING) {
        view = simdjson::padded_string_view(line.data(), line.size(), available);
    } else {
        padded_.assign(line);
        padded_.append(simdjson::SIMDJSON_PADDING, ' ');
        view = simdjson::padded_string_view(padded_.data(), line.size(), padded_.size());
    }
    begin_line(view.data(), line.size(), out);
    if (auto e = parser_.iterate(view).get(doc_)) {
        if (e == simdjson::EMPTY) return outcome::blank;
        fail_json(e, base_);  // doc_ still describes the previous line: no location from it
        return outcome::failed;
    }
    bool ok = parse_root(doc_, out.root);
    const char* trailing = nullptr;
    if (ok && !document_end::at_end(doc_) && !doc_.current_location().get(trailing))
        ok = fail_trailing(trailing);
    return ok && finish_line(out) ? outcome::ok : outcome::failed;
}

bool jsonl_reader::impl::fail(const char* where, std::string msg) {
    if (quiet_) return false;  // the line is parsed again alone, which reports the error
    if (where && where >= base_ && where <= base_ + line_size_)
        err_column_ = static_cast<std::size_t>(where - base_) + 1;
    else
        err_column_ = 1;
    err_message_ = std::move(msg);
    return false;
}

bool jsonl_reader::impl::fail_json(simdjson::error_code e, const char* at) {
    if (quiet_) return false;  // as in fail(); and doc_ is not the document being read
    if (auto found = locate_line_error(e, {base_, line_size_})) {
        const bool in_line = found->offset != std::string_view::npos;
        return fail(in_line ? base_ + found->offset : nullptr, std::move(found->message));
    }
    if (!at && doc_.current_location().get(at)) at = base_ + line_size_;
    return fail(at,
                e == simdjson::DEPTH_ERROR ? too_deep_message(max_depth) : token_error_message(e));
}

bool jsonl_reader::impl::fail_trailing(const char* at) {
    return fail(at, trailing_text_message());
}

jsonl_reader::jsonl_reader(std::string_view text, std::size_t first_line_number)
    : impl_(std::make_unique<impl>(text, first_line_number)) {}
jsonl_reader::~jsonl_reader() = default;
jsonl_reader::jsonl_reader(jsonl_reader&&) noexcept = default;
jsonl_reader& jsonl_reader::operator=(jsonl_reader&&) noexcept = default;

bool jsonl_reader::next(message& out) {
    return impl_->next(out);
}
const std::optional<json_error>& jsonl_reader::error() const {
    return impl_->error_;
}
std::size_t jsonl_reader::line() const {
    return impl_->line_;
}
std::size_t jsonl_reader::offset() const {
    return impl_->pos_;
}
std::size_t jsonl_reader::skip_line() {
    impl_->input_start_ = false;  // a byte order mark was in the dropped line, if anywhere
    impl_->line_ = impl_->next_line_++;
    return impl_->line_;
}
void jsonl_reader::on_new_record_type(std::function<void(const record_type&)> seen) {
    impl_->on_new_type_ = std::move(seen);
}
static_assert(jsonl_reader::padding >= simdjson::SIMDJSON_PADDING);
void jsonl_reader::continue_with(std::string_view text, bool padded) {
    impl& r = *impl_;
    r.input_start_ = r.input_start_ && r.text_.empty();  // nothing was given before
    r.text_ = text;
    r.padding_ = padded ? padding : 0;
    r.pos_ = 0;
    r.block_end_ = 0;
    r.streaming_ = false;
    r.error_.reset();
}

}  // namespace objwire
