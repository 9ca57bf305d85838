#include "client/message_pipeline.hpp"

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

}  // namespace objwire::client
