// The JSON-lines reader of `objwire send` and `objwire encode` on a thread of its own
// (client/pipeline/pipeline.hpp): messages handed in batches to the caller's thread, which sees
// every message once, in input order, with the line it came from - and each bad line at its place
// among them - exactly as one thread reading and sending in turn would.
//
//   read_jsonl_pipelined(text, stop_at_error,
//       [&](const message& m, std::size_t line) { return !c.send(m); },   // false: stop
//       [&](const json_error& e) { ...report...; return keep_going; });
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "client/jsonl/jsonl_reader.hpp"
#include "client/jsonl/raw_lines.hpp"
#include "client/pipeline/input_file.hpp"
#include "client/pipeline/pipeline.hpp"
#include "proto/value.hpp"

namespace objwire::client {

// The pipeline's shape: 16 batches of at most 256 messages and 256 KiB of JSON each (~3 MB
// of `events` messages in flight; lines of 25 KiB go 10 to a batch, so big objects cannot pile
// up: what is in flight stays under 16 x (256 KiB + one line) of JSON). Batches of a few
// hundred objects make the lock and the wake-up per batch nothing against the objects' work;
// 16 of them, reused oldest first, let a batch leave the consumer's caches before the producer
// writes it again. Measured on `objwire encode` of the events file (2 cores): 4 x 256 took
// 0.31 s, 8 x 256 0.24-0.28 s, 16 x 256 and 8 x 512 0.23-0.26 s, one thread 0.35 s.
struct pipeline_options {
    std::size_t batches = 16;
    std::size_t batch_messages = 256;
    std::size_t batch_bytes = 256 * 1024;  // of JSON text; a batch holds at least one line
};

// What the producer hands over: messages in order, each with its line, and the bad line that
// ended the batch early, if any. Slots keep their storage from one use to the next (the reader
// overwrites a message in place).
struct message_batch {
    std::vector<message> messages;    // slots; the first `size` hold this batch's messages
    std::vector<std::uint64_t> line;  // per slot: the message's line
    std::size_t size = 0;
    std::optional<json_error> error;  // after the `size` messages
};

// Fills `b` from `reader` with messages until it holds o.batch_messages, or o.batch_bytes of
// the text have been read; the batch ends early at a bad line (in b.error). False when the
// reader has no more to give: the text ended, or a bad line came and `stop_at_error`
// (--on-error stop) holds.
bool fill_from_reader(jsonl_reader& reader, bool stop_at_error, const pipeline_options& o,
                      message_batch& b);

// Calls on_message(m, line) for each message of `b` and then on_error(e) for its bad line;
// false as soon as one of them returns false.
template <class OnMessage, class OnError>
bool deliver(const message_batch& b, OnMessage& on_message, OnError& on_error) {
    for (std::size_t i = 0; i < b.size; ++i) {
        if (!on_message(b.messages[i], b.line[i])) return false;
    }
    return !b.error || on_error(*b.error);
}

// Reads `text` as JSON lines on a thread of its own; calls, on this thread and in input order,
// on_message(const message&, line) per message and on_error(const json_error&) per bad line.
// Either returns false to stop; `stop_at_error` stops the reader at the first bad line.
// Returns the pipeline's peak of batches in flight (for tests).
template <class OnMessage, class OnError>
std::size_t read_jsonl_pipelined(std::string_view text, bool stop_at_error, OnMessage&& on_message,
                                 OnError&& on_error, pipeline_options o = {}) {
    jsonl_reader reader(text);
    batch_pipeline<message_batch> p(o.batches);
    p.run([&](message_batch& b) { return fill_from_reader(reader, stop_at_error, o, b); },
          [&](const message_batch& b) { return deliver(b, on_message, on_error); });
    return p.peak_in_flight();
}

// Where fill_from_blocks() reads: the input's blocks and the reader going through them.
struct block_input {
    line_blocks& in;
    jsonl_reader reader{std::string_view{}};
    std::optional<raw_line_reader> raw{};  // send --raw: the lines are read as text instead
};

// As fill_from_reader(), reading `in.in` block by block as the reader needs more text; the
// batch is handed over early, with what it has, when the input has nothing more to give
// without waiting, so a quiet input's lines are not held back. False at the end of the input
// (or its read error, or cancel()).
bool fill_from_blocks(block_input& in, bool stop_at_error, const pipeline_options& o,
                      message_batch& b);

// As read_jsonl_pipelined(), reading JSON lines from `in` block by block while they are
// parsed and used, so memory stays bounded whatever the input's size; on_idle() is called
// (on this thread) when no message came for `idle_after`. `on_new_type`, if given, gets the
// reader's new record shapes (jsonl_reader::on_new_record_type), on the reader's thread.
// The batches of stream_jsonl_pipelined() and stream_raw_pipelined(), read from `input`.
template <class OnMessage, class OnError, class OnIdle>
std::size_t stream_blocks_pipelined(block_input& input, bool stop_at_error, OnMessage& on_message,
                                    OnError& on_error, OnIdle& on_idle,
                                    std::chrono::nanoseconds idle_after, pipeline_options o) {
    batch_pipeline<message_batch> p(o.batches);
    p.run([&](message_batch& b) { return fill_from_blocks(input, stop_at_error, o, b); },
          [&](const message_batch& b) { return deliver(b, on_message, on_error); }, on_idle,
          idle_after);
    return p.peak_in_flight();
}

// As read_jsonl_pipelined(), reading JSON lines from `in` block by block while they are
// parsed and used, so memory stays bounded whatever the input's size; on_idle() is called
// (on this thread) when no message came for `idle_after`. `on_new_type`, if given, gets the
// reader's new record shapes (jsonl_reader::on_new_record_type), on the reader's thread.
template <class OnMessage, class OnError, class OnIdle>
std::size_t stream_jsonl_pipelined(line_blocks& in, bool stop_at_error, OnMessage&& on_message,
                                   OnError&& on_error, OnIdle&& on_idle,
                                   std::chrono::nanoseconds idle_after, pipeline_options o = {},
                                   std::function<void(const record_type&)> on_new_type = {}) {
    block_input input{in};
    if (on_new_type) input.reader.on_new_record_type(std::move(on_new_type));
    return stream_blocks_pipelined(input, stop_at_error, on_message, on_error, on_idle, idle_after,
                                   o);
}

// As stream_jsonl_pipelined(), each line a text record of `raw` (client/jsonl/raw_lines.hpp).
template <class OnMessage, class OnError, class OnIdle>
std::size_t stream_raw_pipelined(line_blocks& in, raw_line_reader raw, bool stop_at_error,
                                 OnMessage&& on_message, OnError&& on_error, OnIdle&& on_idle,
                                 std::chrono::nanoseconds idle_after, pipeline_options o = {}) {
    block_input input{in};
    input.raw.emplace(std::move(raw));
    return stream_blocks_pipelined(input, stop_at_error, on_message, on_error, on_idle, idle_after,
                                   o);
}

}  // namespace objwire::client
