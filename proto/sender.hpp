// The sending end of one connection as a state machine, with no I/O: messages go in, frames
// come out of output(), replies go into process(). Messages are batched into frames of up to
// batch_max_bytes (the receiver's max_frame_bytes is the hard cap), compressed when the
// compression policy says so (docs/COMPRESSION.md), and sealed with a sequence number and
// checksum; acks release in-flight bytes.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <system_error>

#include "proto/batch_compressor.hpp"
#include "proto/control.hpp"
#include "proto/encoder.hpp"
#include "proto/frame_reader.hpp"

namespace objwire {

class sender {
  public:
    struct options {
        hello greeting;
        std::uint32_t batch_max_bytes = 64 * 1024;
        // Table policy, indexing and transient fields; `peer` is filled from the welcome.
        encoder_options encoding;
        std::size_t read_block = 16 * 1024;
        compression_options compression;  // whether and how to compress frames
        clock_function clock;             // times compression; empty: steady clock
    };
    enum class state { greeting, streaming, closing, closed, failed };

    explicit sender(options opts);

    // Bytes to write: the hello at first, then sealed frames. consume_output() after writing.
    std::span<const std::uint8_t> output() const { return out_.span().first(sealed_); }
    void consume_output();

    // Reply bytes from the peer go here, then process().
    std::span<std::uint8_t> prepare() { return reader_.prepare(); }
    void commit(std::size_t n) { reader_.commit(n); }
    std::error_code process();

    // Encodes a message into the open batch; seals it when it reaches batch_max_bytes.
    std::error_code add(const message& m);
    // Seals the open batch (if any) into a frame.
    void seal();
    // Seals, then queues the goodbye: the peer answers with its last ack and a goodbye.
    void finish();

    state current() const { return state_; }
    const welcome& peer() const { return welcome_; }
    std::error_code error() const { return error_; }
    const std::string& error_detail() const { return detail_; }

    std::size_t open_batch_bytes() const { return out_.size() - batch_start_ - frame_header_size; }
    std::uint64_t in_flight_bytes() const { return in_flight_bytes_; }
    bool all_acked() const { return in_flight_.empty() && open_messages_ == 0; }
    std::uint64_t frames_sent() const { return next_sequence_ - 1; }
    std::uint64_t messages_added() const { return messages_; }
    const ack& last_ack() const { return last_ack_; }
    const table_stats& table() const;
    // The compression policy: the I/O layer feeds it the link's bandwidth and its blocked time.
    compression_policy& compression() { return compressor_.policy(); }
    const compression_policy& compression() const { return compressor_.policy(); }

  private:
    std::error_code on_frame(const frame_view& f);
    std::error_code fail(std::error_code ec, std::string detail);
    void open_batch();

    options opts_;
    frame_reader reader_;
    std::optional<stream_encoder> encoder_;
    byte_buffer out_;              // [sealed frames][open batch]
    std::size_t sealed_ = 0;       // bytes of out_ that are whole frames
    std::size_t batch_start_ = 0;  // where the open batch's header starts
    std::uint64_t open_messages_ = 0;
    std::uint64_t messages_ = 0;
    std::uint64_t next_sequence_ = 1;
    struct in_flight_frame {
        std::uint64_t sequence;
        std::uint64_t bytes;
    };
    std::deque<in_flight_frame> in_flight_;
    std::uint64_t in_flight_bytes_ = 0;
    state state_ = state::greeting;
    welcome welcome_;
    ack last_ack_;
    std::error_code error_;
    std::string detail_;
    byte_buffer scratch_;
    batch_compressor compressor_;
};

}  // namespace objwire
