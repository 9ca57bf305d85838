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
#include <vector>

#include "proto/batch_compressor.hpp"
#include "proto/codec.hpp"
#include "proto/columns.hpp"
#include "proto/control.hpp"
#include "proto/decoder.hpp"
#include "proto/encoder.hpp"
#include "proto/frame_reader.hpp"
#include "proto/input_digest.hpp"

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
        // Keeps every unacknowledged frame so that restart() can resume the stream on a new
        // connection (docs/PROTOCOL.md, "Resume"). Costs a copy of each frame's payload, kept
        // from the last frame that began with an empty table, so a restart can rebuild the
        // receiver's table by decoding them again.
        bool resumable = false;
        // Resumable only: the table is reset at the start of a frame once this many bytes
        // were kept (payloads plus 64 per frame) since the last such reset, which bounds what is
        // kept and what a restart decodes again (resume.max_replay_bytes).
        std::uint64_t max_replay_bytes = 8 * 1024 * 1024;
        // Bytes of data frames written and not yet acknowledged, at most (flow.max_in_flight);
        // the receiver's credit (welcome field 11) lowers it. 0: no limit of our own.
        std::uint64_t max_in_flight = 0;
        // Report the input digest (proto/input_digest.hpp) with every data frame, as a mark
        // frame before it, to a receiver that keeps it (its welcome has a resume token), so a
        // rerun of the same input can be checked (docs/PROTOCOL.md 1.1, "Reruns").
        bool input_digests = false;
    };
    enum class state { greeting, streaming, closing, closed, failed };

    explicit sender(options opts);

    // Bytes to write: the hello at first, then sealed frames - only as many data frames as the
    // send window (window_bytes()) has room for; one frame larger than the window goes alone,
    // once everything before it is acknowledged. consume_output() after writing them all.
    std::span<const std::uint8_t> output() const { return out_.span().first(released_); }
    void consume_output();
    // Sealed frames wait for acknowledgements to make room in the window: the I/O layer reads
    // replies (blocking its producer) until output() has them.
    bool frames_waiting() const { return !queued_.empty(); }
    // min(options.max_in_flight, the receiver's credit); 0 when neither limits it.
    std::uint64_t window_bytes() const;
    // The receiver's credit: its welcome's (field 11), then the last ack's that carried one
    // (field 7). 0: it announced none.
    std::uint64_t credit_bytes() const { return credit_bytes_; }
    // Data-frame bytes written (or offered by output()) and not yet acknowledged now; frames
    // waiting for room in the window are not counted.
    std::uint64_t unacked_bytes() const { return in_flight_bytes_ - queued_data_bytes_; }
    // The most data-frame bytes ever written and unacknowledged at once (after each
    // consume_output()), over every connection.
    std::uint64_t peak_unacked_bytes() const { return peak_unacked_bytes_; }

    // Reply bytes from the peer go here, then process().
    std::span<std::uint8_t> prepare() { return reader_.prepare(); }
    void commit(std::size_t n) { reader_.commit(n); }
    std::error_code process();

    // Encodes a message into the open batch; seals it when it reaches batch_max_bytes.
    std::error_code add(const message& m);
    // The same for a message written straight from the program's data (proto/typed_writer.hpp).
    std::error_code add(const typed_source& m);
    // The input digest after every message added so far (options.input_digests). A stream
    // that continues what its sender id stored starts from the stored digest.
    std::uint64_t input_digest() const { return input_digest_; }
    void continue_input_digest(std::uint64_t digest) { input_digest_ = digest; }
    // Seals the open batch (if any) into a frame.
    void seal();
    // Seals, then queues the goodbye: the peer answers with its last ack and a goodbye.
    void finish();
    // The connection broke (options.resumable only): output() is a new hello. The welcome's
    // next_sequence then says what the receiver has stored; the frames after it are
    // re-encoded for the fresh table and resent with their sequence numbers and message
    // boundaries, followed by whatever is added later (and the goodbye if finish() was
    // called).
    std::error_code restart();

    state current() const { return state_; }
    const welcome& peer() const { return welcome_; }
    std::error_code error() const { return error_; }
    const std::string& error_detail() const { return detail_; }

    // The open batch's encoded bytes (in column layout: all sections, without the directory).
    std::size_t open_batch_bytes() const {
        return out_.size() - batch_start_ - frame_header_size +
               (open_columns_ ? columns_.bytes() : 0);
    }
    std::uint64_t in_flight_bytes() const { return in_flight_bytes_; }
    bool all_acked() const { return in_flight_.empty() && open_messages_ == 0; }
    std::uint64_t frames_sent() const { return frames_sealed_; }  // resent ones too
    std::uint64_t messages_added() const { return messages_; }
    // Messages in sealed frames (written, or waiting for room in the window).
    std::uint64_t messages_sealed() const { return messages_ - open_messages_; }
    // Messages of acknowledged frames (or found stored on resume), over every connection.
    std::uint64_t messages_acked() const { return messages_acked_; }
    // The sequence the next sealed frame gets.
    std::uint64_t next_sequence() const { return next_sequence_; }
    // Frames resent after a restart().
    std::uint64_t frames_resent() const { return frames_resent_; }
    // Bytes kept for a restart (options.resumable: payloads plus a small charge per frame): at
    // most about max_replay_bytes plus what is unacknowledged.
    std::uint64_t retained_bytes() const { return retained_bytes_; }
    const ack& last_ack() const { return last_ack_; }
    const table_stats& table() const;
    // The compression policy: the I/O layer feeds it the link's bandwidth and its blocked time.
    compression_policy& compression() { return compressor_.policy(); }
    const compression_policy& compression() const { return compressor_.policy(); }

  private:
    std::error_code on_frame(const frame_view& f);
    std::error_code on_welcome(const frame_view& f);
    std::error_code on_ack(const frame_view& f);
    std::error_code fail(std::error_code ec, std::string detail);
    void open_batch();
    // Encodes into the open batch; `fill` seals it once it reaches batch_max_bytes.
    template <class Source>  // message or typed_source
    std::error_code add_source(const Source& m);
    template <class Source>
    std::error_code add_message(const Source& m, bool fill);
    template <class Source>
    std::error_code add_in_columns(const Source& m, bool fill);
    std::error_code message_added(bool fill);
    std::error_code drop_message(std::size_t before);
    bool frame_overflows(std::size_t directory) const;
    void seal_batch();
    void write_columns();
    // A whole frame of `bytes` was appended to out_: it queues for output() behind the others.
    void push_sealed(std::size_t bytes, bool data);
    // Moves queued frames to output() while the window has room for them.
    void release();
    // Keeps the open batch's payload (before compression) for a restart.
    void retain(std::uint64_t sequence);
    // Drops retained frames no restart needs: those before the last acknowledged one that
    // began with an empty table.
    void trim_retained();
    // After the welcome that follows restart(): rebuilds the old receiver's table from the
    // retained frames and re-encodes the ones after its last stored frame. `old` are the
    // limits (table budget) the old connection's receiver announced.
    std::error_code replay(const decoder_limits& old);

    options opts_;
    frame_reader reader_;
    std::optional<stream_encoder> encoder_;
    byte_buffer out_;           // [sealed frames][open batch]
    std::size_t sealed_ = 0;    // bytes of out_ that are whole frames
    std::size_t released_ = 0;  // of those, the bytes output() offers (a prefix)
    // Sealed frames after the released ones, in out_ order; data frames count in the window.
    struct queued_frame {
        std::size_t bytes;
        bool data;
    };
    std::deque<queued_frame> queued_;
    std::uint64_t queued_data_bytes_ = 0;  // data frames in queued_: sealed, not yet offered
    std::uint64_t peak_unacked_bytes_ = 0;
    std::size_t batch_start_ = 0;  // where the open batch's header starts
    std::uint64_t open_messages_ = 0;
    std::uint64_t open_reference_bytes_ = 0;  // the open batch's, against max_reference_bytes
    std::uint64_t messages_ = 0;
    std::uint64_t next_sequence_ = 1;
    struct in_flight_frame {
        std::uint64_t sequence;
        std::uint64_t bytes;
        std::uint64_t messages;
    };
    std::deque<in_flight_frame> in_flight_;
    std::uint64_t messages_acked_ = 0;
    std::uint64_t frames_sealed_ = 0;
    std::uint64_t frames_resent_ = 0;
    // options.resumable: the payloads of the frames from the last acknowledged one that began
    // with an empty table (so the receiver's table can be rebuilt from them) to the newest.
    struct retained_frame {
        std::uint64_t sequence;
        byte_buffer payload;
        std::uint64_t digest;  // the input digest its mark gave
    };
    // What a kept frame costs beyond its payload (the buffer and this record), in the bound.
    static constexpr std::uint64_t retained_frame_overhead = 64;
    std::deque<retained_frame> retained_;
    // Sequences of the retained frames that began with an empty table (nothing before one is
    // needed to decode it), oldest first.
    std::deque<std::uint64_t> fresh_sequences_;
    std::uint64_t retained_bytes_ = 0;
    std::uint64_t acked_through_ = 0;      // the last sequence acknowledged (or found stored)
    std::uint64_t since_fresh_bytes_ = 0;  // bytes kept since the last fresh frame
    bool open_fresh_ = false;              // the open batch begins with an empty table
    bool restarting_ = false;              // restart() called, its welcome not yet here
    bool finishing_ = false;               // finish() called: the goodbye follows any replay
    std::uint64_t in_flight_bytes_ = 0;
    // options.input_digests: the digest after the messages added (the open batch's included),
    // and the one a message being added would make.
    std::uint64_t input_digest_ = empty_input_digest;
    std::uint64_t adding_digest_ = empty_input_digest;
    bool marking() const { return opts_.input_digests && !welcome_.resume_token.empty(); }
    // Puts a mark frame for data frame `sequence` before the frame sealed at batch_start_.
    void insert_mark(std::uint64_t sequence);
    state state_ = state::greeting;
    welcome welcome_;
    std::uint64_t credit_bytes_ = 0;
    ack last_ack_;
    std::error_code error_;
    std::string detail_;
    byte_buffer scratch_;
    batch_compressor compressor_;
    // The open batch in column layout: its field sections (the main one is in out_), a
    // message's sections on their way to the next frame, and the main section while the
    // payload is put together.
    bool open_columns_ = false;
    column_sections columns_;
    column_sections held_columns_;
    byte_buffer column_main_;
};

}  // namespace objwire
