// The receiving end of one connection as a state machine, with no I/O: the driver reads bytes
// into prepare(), calls process(), hands the delivered messages to its sinks, calls
// acknowledge() once they are stored, and writes output(). The state machine checks the
// handshake, sequence numbers, checksums and every decoder limit; the first failure makes the
// step `close`, and acknowledge() then queues the ack for the good frames before it followed
// by an error frame saying what was wrong.
//
// Messages are delivered as they decode, one reused message, so a frame costs no allocation
// per message and no second copy of its objects. A frame that fails part-way has delivered its
// first messages: the driver drops them (frames() counts only whole frames, and the ack covers
// only those). A driver that stores fresh frames whole has them checked instead of decoded
// (options::check_fresh_frames): no message is built for them.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "proto/buffer_pool.hpp"
#include "proto/byte_buffer.hpp"
#include "proto/clock.hpp"
#include "proto/codec.hpp"
#include "proto/control.hpp"
#include "proto/decoder.hpp"
#include "proto/frame_reader.hpp"

namespace objwire {

// Whether a fresh frame that a table of `budget` bytes decoded, evicting `evictions` entries,
// decodes exactly alike under the table of `stored_budget` a reader of the stored payload has.
// Eviction is the only thing a budget changes: an id is the lowest free one or the next, ids
// only come free by eviction, and an entry fits (pinned + cost <= budget) under any larger
// budget too. So a frame that evicted nothing reads alike under any larger table; one that
// evicted may not, and neither may one decoded under a larger table than the reader's.
bool reads_back_alike(std::uint64_t budget, std::uint64_t stored_budget, std::uint64_t evictions);

class receiver {
  public:
    struct options {
        decoder_limits limits;
        std::string server_name = "objwired";
        std::string sink;  // described to the client in the welcome
        std::size_t read_block = 256 * 1024;
        std::uint32_t codecs = built_codecs();  // accepted (bit n = codec n), in the welcome
        clock_function clock;                   // times decompression; empty: steady clock
        // false: process() stops at the hello with step::admit, so the driver can check the
        // peer (token, role, sender id) and learn where its stream resumes before answering.
        bool admit_on_hello = true;
        // Largest raw_len / compressed payload size of a data frame; 0: no limit (raw_len is
        // capped by max_frame_bytes either way). Checked before inflating.
        std::uint32_t max_decompression_ratio = 0;
        // Announced in the welcome (field 11): bytes of data frames this receiver holds
        // unacknowledged for the connection; 0 announces none.
        std::uint64_t credit_bytes = 0;
        // Announced in the welcome (field 14): the driver stores fresh frames as they came.
        bool fresh_frames = false;
        // The driver stores a fresh frame's payload whole (frame_payload()) and needs none of
        // its messages: such a frame is checked, not decoded (stream_decoder::check_payload,
        // the same checks and table state), deliver is not called for it and frame_done gets
        // its message count. A driver that sets this must pass frame_done.
        bool check_fresh_frames = false;
        // The table a payload stored whole is read back with (the journal's); 0: this
        // receiver's own, options.limits.table_budget. A connection granted a smaller table
        // (limit_table(), or a smaller hello) keeps fresh frames: a checked frame that
        // evicted nothing is stored whole, one that evicted is decoded again from an empty
        // table and delivered, so the driver encodes its objects again (reads_back_alike).
        // A receiver whose table is larger than this asks for no fresh frames.
        std::uint64_t stored_table_budget = 0;
        // Where the read block and the inflate buffer come from, and go back to while the
        // connection waits with no frame begun (park()); null: the receiver keeps its own.
        buffer_pool* pool = nullptr;
    };
    enum class state { awaiting_hello, admitting, streaming, finished, failed };
    enum class step { read, admit, close };

    explicit receiver(options opts);

    std::span<std::uint8_t> prepare();
    void commit(std::size_t n) { reader_.commit(n); }

    // Handles every complete frame buffered, delivering each message as it decodes. A deliver
    // that only reads the message (does not move from it) lets the next one reuse its storage.
    step process(const std::function<void(message&&)>& deliver);
    // As above, and after each data frame whose messages all decoded, frame_done(messages).
    using frame_handler = std::function<void(std::uint64_t messages)>;
    step process(const std::function<void(message&&)>& deliver, const frame_handler& frame_done);
    // While process() delivers a data frame's messages and in frame_done: the frame's payload
    // as decoded (decompressed), and whether it decodes on its own - it began with a fresh
    // table, so a new decoder reads it exactly as this one does.
    std::span<const std::uint8_t> frame_payload() const { return frame_payload_; }
    bool frame_fresh() const { return frame_fresh_; }
    // While process() delivers a data frame and in frame_done: the bytes it took on the wire,
    // header and payload as sent (compressed or not).
    std::uint64_t frame_wire_bytes() const { return frame_wire_bytes_; }
    // In frame_done: the frame was checked only (options::check_fresh_frames): its messages
    // were counted, not delivered, and the driver stores frame_payload() instead. A fresh
    // frame that was checked and then delivered after all (it evicted under a table smaller
    // than options::stored_table_budget) is not.
    bool frame_checked() const { return frame_checked_; }
    // In frame_done: the input digest the sender's mark frame gave for this data frame (0:
    // none; docs/PROTOCOL.md 1.1, "Reruns").
    std::uint64_t frame_digest() const { return frame_digest_; }
    // Everything delivered so far is stored: queue an ack for it (nothing if nothing is new),
    // then the error frame after a failure, or after the sender's goodbye our goodbye.
    void acknowledge();
    // What the welcome tells a sender about its stream (fields 16-18, docs/PROTOCOL.md 1.1).
    struct stream_welcome {
        std::string resume_token;
        std::uint64_t stored_objects = 0;
        std::uint64_t stored_digest = 0;
    };
    // Before admit(): the table may hold at most `bytes` (the driver's grant, when it is less
    // than options.limits.table_budget); the welcome announces it. Fresh frames stay asked
    // for: options::stored_table_budget says which of them are stored whole.
    void limit_table(std::uint64_t bytes);
    // The connection's credit, in place of options.credit_bytes (the driver's share of what it
    // holds for all connections): before admit() the welcome announces it; later, the next ack
    // carries it (field 7) if it differs from the one last announced. 0: none, unchanged.
    void set_credit(std::uint64_t bytes) {
        if (bytes != 0) opts_.credit_bytes = bytes;
    }
    // The credit the peer was last told (welcome or ack).
    std::uint64_t announced_credit() const { return announced_credit_; }
    // While streaming, with everything delivered acknowledged: if the credit differs from the
    // one last announced, queue an ack of what is already acknowledged that carries it - a
    // sender learns a smaller share before it has anything new acknowledged.
    void announce_credit();
    // After step::admit: welcome the peer. Its data frames continue after last_sequence, the
    // last frame of this sender that is already stored (0 for a new stream).
    void admit(std::uint64_t last_sequence, const stream_welcome& stream);
    void admit(std::uint64_t last_sequence = 0) { admit(last_sequence, stream_welcome()); }
    // After step::admit: turn the peer away; acknowledge() queues the error frame.
    void refuse(std::error_code ec, std::string_view detail = {});
    // While process() delivers a frame (in deliver or frame_done): the driver will not take
    // it. The frame fails with `ec` as a decode error would - not counted, not acknowledged,
    // the error frame queued - and the connection ends.
    void refuse_frame(std::error_code ec, std::string detail) {
        if (!refused_) refused_ = ec, refused_detail_ = std::move(detail);
    }
    // A frame was refused: nothing of it or after it is to be taken.
    bool frame_refused() const { return static_cast<bool>(refused_); }

    byte_buffer& output() { return out_; }
    const options& settings() const { return opts_; }
    state current() const { return state_; }
    std::error_code error() const { return error_; }
    // The error with its context, as sent to the peer (or as the peer reported it).
    const std::string& error_detail() const { return detail_; }
    const hello& peer() const { return hello_; }
    // The peer's hello was read (a later failure is a bad frame, not a bad hello).
    bool hello_received() const { return hello_received_; }
    std::uint64_t frames() const { return last_sequence_; }
    std::uint64_t messages() const { return messages_; }
    const table_stats& table() const { return decoder_.table(); }
    // Data frames that arrived compressed: how many, their payload bytes as received and
    // decompressed (for the daemon's metrics).
    std::uint64_t compressed_frames() const { return compressed_frames_; }
    std::uint64_t compressed_bytes() const { return compressed_bytes_; }
    std::uint64_t decompressed_bytes() const { return decompressed_bytes_; }
    std::size_t buffered() const { return reader_.buffered(); }
    // After the hello of a connection another part serves (a reader, a stats request): gives
    // back the read block and the buffers of frames this receiver will not handle, so the
    // connection holds only what that part holds.
    void release_buffers();
    // With options::pool: when no byte of a frame is buffered, gives the read block and the
    // inflate buffer back to the pool (the next prepare() takes one again) and returns true.
    bool park();
    // No read block is held (parked, or nothing read yet).
    bool parked() const { return reader_.capacity() == 0; }
    // Bytes of buffer this receiver holds now: its read block and what it writes or inflates.
    std::size_t buffer_bytes() const {
        return reader_.capacity() + out_.capacity() + scratch_.capacity() + raw_.capacity();
    }

  private:
    step on_frame(const frame_view& f, const std::function<void(message&&)>& deliver,
                  const frame_handler& frame_done);
    step on_hello(const frame_view& f);
    step on_mark(const frame_view& f);
    step on_data(const frame_view& f, const std::function<void(message&&)>& deliver,
                 const frame_handler& frame_done);
    step fail(std::error_code ec, std::string_view detail = {});
    // A fresh frame's payload, checked; decoded again and delivered when the stored payload
    // would not read back alike. Sets frame_checked_ and `messages`.
    std::error_code check_fresh(std::span<const std::uint8_t> payload,
                                const std::function<void(message&&)>& deliver,
                                std::uint64_t& messages);
    std::string frame_error(const frame_parser::result& r) const;
    std::string data_error(std::error_code ec, const frame_view& f) const;
    // The payload of a data frame as the decoder reads it: decompressed into raw_ if needed.
    std::error_code unpack(const frame_view& f, std::span<const std::uint8_t>& payload);
    // Queues an ack of acked_sequence_, with the credit if it differs from the one announced.
    void queue_ack();

    options opts_;
    frame_reader reader_;
    stream_decoder decoder_;
    byte_buffer out_;
    byte_buffer scratch_;
    byte_buffer error_frame_;
    frame_decompressor decompressor_;
    byte_buffer raw_;  // decompressed payload, reused; never larger than max_frame_bytes
    std::span<const std::uint8_t> frame_payload_;
    bool frame_fresh_ = false;
    std::uint64_t frame_wire_bytes_ = 0;
    bool frame_checked_ = false;
    std::uint64_t frame_digest_ = 0;
    std::uint64_t pending_digest_ = 0;  // from a mark frame, for the next data frame
    std::uint64_t decompressed_bytes_ = 0;
    std::uint64_t compressed_frames_ = 0;
    std::uint64_t compressed_bytes_ = 0;
    std::uint64_t decompress_ns_ = 0;
    state state_ = state::awaiting_hello;
    std::error_code error_;
    std::string detail_;
    bool goodbye_sent_ = false;
    std::error_code refused_;  // refuse_frame()
    std::string refused_detail_;
    hello hello_;
    bool hello_received_ = false;
    std::uint64_t last_sequence_ = 0;
    std::uint64_t acked_sequence_ = 0;
    std::uint64_t announced_credit_ = 0;
    std::uint64_t messages_ = 0;
};

}  // namespace objwire
