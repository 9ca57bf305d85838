#include "client/pipeline/message_pipeline.hpp"

#include <string>

namespace objwire::client {
namespace {

// Empties `b` for refilling; its slots (and their storage) are made on first use only.
void start_batch(message_batch& b, std::size_t capacity) {
    if (b.messages.size() < capacity) {
        b.messages.resize(capacity);
        b.line.resize(capacity);
    }
    b.size = 0;
    b.error.reset();
}

// A line over the input's line limit, which line_blocks dropped: a bad line at its place.
template <class Reader>
json_error dropped_line_error(Reader& reader, const line_blocks& in) {
    const std::size_t limit = in.line_limit();
    return {reader.skip_line(), limit + 1,
            "line longer than " + std::to_string(limit) + " bytes (" + in.line_limit_why() +
                "): not sent; the rest of the line was read past, not kept"};
}

template <class Reader>
bool fill_with(block_input& in, Reader& reader, bool stop_at_error, const pipeline_options& o,
               message_batch& b) {
    start_batch(b, o.batch_messages);
    std::size_t bytes = 0;  // of the texts read into this batch before the current one
    std::size_t start = reader.offset();
    while (b.size < o.batch_messages && bytes + reader.offset() - start < o.batch_bytes) {
        if (reader.next(b.messages[b.size])) {
            b.line[b.size++] = reader.line();
            continue;
        }
        if (reader.error()) {
            b.error = *reader.error();
            return !stop_at_error;
        }
        // This text is done: what the batch holds goes now if more would mean waiting.
        if (b.size > 0 && !in.in.ready()) return true;
        bytes += reader.offset() - start;
        std::string_view text;
        if (!in.in.next(text, jsonl_reader::padding)) return false;
        reader.continue_with(text, true);
        if (in.in.dropped_line()) {
            b.error = dropped_line_error(reader, in.in);
            return !stop_at_error;
        }
        start = 0;
    }
    return true;
}

}  // namespace

bool fill_from_reader(jsonl_reader& reader, bool stop_at_error, const pipeline_options& o,
                      message_batch& b) {
    start_batch(b, o.batch_messages);
    const std::size_t start = reader.offset();
    while (b.size < o.batch_messages && reader.offset() - start < o.batch_bytes) {
        if (reader.next(b.messages[b.size])) {
            b.line[b.size++] = reader.line();
            continue;
        }
        if (!reader.error()) return false;  // the end of the text
        // The bad line ends the batch, so the consumer reports it after the lines before it.
        b.error = *reader.error();
        return !stop_at_error;
    }
    return true;
}

bool fill_from_blocks(block_input& in, bool stop_at_error, const pipeline_options& o,
                      message_batch& b) {
    return in.raw ? fill_with(in, *in.raw, stop_at_error, o, b)
                  : fill_with(in, in.reader, stop_at_error, o, b);
}

}  // namespace objwire::client
