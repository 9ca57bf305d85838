#include <objwire/reader.hpp>

#include <algorithm>

#include <objwire/connection.hpp>
#include "proto/errors.hpp"
#include "proto/frame.hpp"
#include "proto/journal_block.hpp"

namespace objwire::client {
namespace {
constexpr std::size_t read_block = 256 * 1024;
// How often a wait looks at the stop flag.
constexpr std::chrono::milliseconds stop_poll{200};

// The largest frame this reader accepts: the option, within read.max_block_bytes.
std::uint32_t frame_limit(const config::client_settings& s, const read_options& o) {
    const std::uint64_t block = s.read_max_block_bytes + frame_header_size;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(o.max_frame_bytes, block));
}

// What decoding a stored block may cost: the journal's own limits (a different table budget
// would change what ids mean) with this reader's read.max_decoded_bytes.
decoder_limits block_limits(const config::client_settings& s) {
    auto l = journal_block_limits();
    l.max_reference_bytes = s.read_max_decoded_bytes;
    return l;
}
}  // namespace

reader::reader(config::client_settings settings, read_options options)
    : settings_(std::move(settings)),
      options_(std::move(options)),
      socket_(io_),
      link_(socket_),
      frames_(frame_limit(settings_, options_), read_block) {
    options_.max_frame_bytes = frame_limit(settings_, options_);
}

reader::~reader() {
    std::error_code ignored;
    socket_.close(ignored);
}

bool reader::fail(std::error_code ec, std::string text) {
    if (!error_) {
        error_ = ec;
        last_error_ = std::move(text);
    }
    open_ = false;
    block_left_ = 0;
    std::error_code ignored;
    socket_.close(ignored);
    return false;
}

std::error_code reader::write_all(std::span<const std::uint8_t> bytes) {
    while (!bytes.empty()) {
        std::error_code ec;
        const std::size_t n = link_.write_some(bytes, ec);
        bytes = bytes.subspan(n);
        if (!ec) continue;
        if (ec != asio::error::would_block && ec != asio::error::try_again) return ec;
        if (auto w = link_.wait_writable(settings_.connect_timeout)) return w;
    }
    return {};
}

std::error_code reader::open() {
    const std::string where = settings_.to_host + ":" + std::to_string(settings_.to_port);
    std::string token, why;
    if (!read_token_file(settings_, token, why)) {
        fail(client_errc::connect_failed, why);
        return error_;
    }
    if (auto ec = link_.connect(settings_, why)) {
        fail(ec, why);
        return error_;
    }
    std::error_code ignored;
    socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
    open_ = true;

    hello h;
    h.client_name = options_.client_name;
    h.max_frame_bytes = options_.max_frame_bytes;
    h.auth_token = token;
    h.role = peer_role::reader;
    h.read_from = options_.from;
    h.follow = options_.follow;
    h.read_sender = options_.sender;
    h.read_at_end = options_.at_end;
    h.read_last = options_.last;
    h.read_cursor = options_.cursor;
    h.cursor_command = options_.cursor_command;
    byte_buffer payload, frame;
    encode_hello(h, payload);
    append_frame(frame, frame_kind::hello, 0, payload.span());
    if (auto ec = write_all(frame.span())) {
        fail(client_errc::connection_lost,
             "cannot send the hello to " + where + ": " + ec.message());
        return error_;
    }
    frame_view f;
    if (!read_frame(f)) return error_;
    if (options_.cursor_command != cursor_op::none) return on_cursor_answer(f);
    if (f.header.kind == frame_kind::error) {
        auto e = decode_error(f.payload);
        fail(e ? std::error_code(static_cast<proto_errc>(e->code)) : proto_errc::bad_message,
             "refused: " + (e ? e->text : std::string("malformed error frame")));
        return error_;
    }
    if (f.header.kind != frame_kind::welcome) {
        fail(proto_errc::unexpected_frame, "the daemon did not answer the hello with a welcome");
        return error_;
    }
    auto w = decode_welcome(f.payload);
    if (!w) {
        fail(w.error(), "bad welcome: " + std::error_code(w.error()).message());
        return error_;
    }
    welcome_ = std::move(*w);
    // A NATS stream counts offsets in stream sequences (blocks), which the daemon applied
    // already; the offsets inside its blocks count one connection's objects (docs/PROTOCOL.md).
    offsets_are_blocks_ = welcome_.sink.rfind("nats:", 0) == 0;
    // A daemon without welcome field 20 started at `from`.
    floor_ = std::max(
        {welcome_.read_start, options_.skip_below, options_.cursor.empty() ? options_.from : 0});
    return {};
}

std::error_code reader::on_cursor_answer(const frame_view& f) {
    if (f.header.kind == frame_kind::error) {
        auto e = decode_error(f.payload);
        fail(e ? std::error_code(static_cast<proto_errc>(e->code)) : proto_errc::bad_message,
             e ? e->text : std::string("malformed error frame"));
        return error_;
    }
    if (f.header.kind == frame_kind::cursor_list) {
        auto l = decode_cursor_list(f.payload);
        if (!l) {
            fail(l.error(), "bad cursor list: " + std::error_code(l.error()).message());
            return error_;
        }
        cursors_ = std::move(*l);
    } else if (f.header.kind != frame_kind::goodbye) {
        fail(proto_errc::unexpected_frame, "the daemon did not answer the cursor request");
        return error_;
    }
    finished_ = true;
    close();
    return {};
}

bool reader::read_frame(frame_view& out) {
    const auto timeout = options_.follow ? options_.follow_idle_timeout : options_.idle_timeout;
    const bool forever = timeout.count() == 0;
    // With a stop flag the wait is cut in slices that look at it.
    const std::chrono::milliseconds slice = options_.stop ? stop_poll
                                            : forever     ? std::chrono::hours(1)
                                                          : timeout;
    std::chrono::milliseconds waited{0};
    for (;;) {
        auto r = frames_.next();
        if (r.state == frame_parser::status::frame) {
            out = r.frame;
            stats_.wire_bytes_in += r.size;
            return true;
        }
        if (r.state == frame_parser::status::error && r.error == proto_errc::frame_too_large)
            return fail(r.error, "a frame from the daemon is larger than this reader accepts (" +
                                     std::to_string(options_.max_frame_bytes) +
                                     " bytes with its header: read.max_block_bytes)");
        if (r.state == frame_parser::status::error)
            return fail(r.error, "bad frame from the daemon: " + r.error.message());
        if (options_.stop && options_.stop->load()) {
            stopped_ = true;
            return false;
        }
        auto space = frames_.prepare();
        std::error_code ec;
        const std::size_t got =
            link_.read_some(space, forever ? slice : std::min(slice, timeout - waited), ec);
        if (ec == client_errc::timed_out) {
            if (options_.on_wait) options_.on_wait();
            if (!open_) return false;  // on_wait's write failed
            waited += slice;
            if (forever || waited < timeout) continue;
            return fail(client_errc::timed_out, "no data from the daemon within " +
                                                    std::to_string(timeout.count()) + " ms");
        }
        if (ec) {
            const bool eof = ec == asio::error::eof;
            return fail(client_errc::connection_lost,
                        eof ? "the daemon closed the connection before the end of the stream"
                            : "connection lost: " + ec.message());
        }
        frames_.commit(got);
    }
}

bool reader::on_block(const frame_view& f) {
    if (f.header.sequence != expected_sequence_)
        return fail(proto_errc::bad_sequence, "block frame " + std::to_string(f.header.sequence) +
                                                  " where " + std::to_string(expected_sequence_) +
                                                  " was due");
    ++expected_sequence_;
    const auto parsed = parse_journal_block(f.payload);
    if (parsed.state != journal_block_parse::status::block || parsed.size != f.payload.size())
        return fail(parsed.error ? parsed.error : std::error_code(proto_errc::trailing_bytes),
                    "bad stored block in frame " + std::to_string(f.header.sequence) + ": " +
                        (parsed.error ? parsed.error.message() : "bytes after the block"));
    const auto& b = parsed.block;
    if (b.header.message_count > settings_.read_max_block_objects)
        return fail(proto_errc::too_many_elements,
                    "the stored block at offset " + std::to_string(b.header.first_offset) +
                        " announces " + std::to_string(b.header.message_count) +
                        " objects, more than this reader accepts (" +
                        std::to_string(settings_.read_max_block_objects) +
                        ", read.max_block_objects)");
    // Journal offsets only grow (gaps and a sender filter skip some): a block that goes back
    // would hand out offsets twice, and a reader resuming after them would skip objects.
    if (!offsets_are_blocks_ && b.header.first_offset < served_end_)
        return fail(proto_errc::bad_message,
                    "the daemon served offsets going backwards: a block at offset " +
                        std::to_string(b.header.first_offset) + " after offsets up to " +
                        std::to_string(served_end_ - 1));
    served_end_ = b.end_offset();
    decoder_.emplace(block_limits(settings_));
    block_in_ = byte_reader(b.payload);
    if (auto ec = decoder_->open_payload(b.payload, block_in_))
        return fail(ec, "cannot decode the stored block at offset " +
                            std::to_string(b.header.first_offset) + ": " + ec.message());
    block_left_ = b.header.message_count;
    block_offset_ = b.header.first_offset;
    block_time_ms_ = b.header.time_ms;
    // Several blocks in a row come from one sender: they share one copy of its id.
    if (block_sender_.str() != b.sender_id)
        block_sender_ = shared_sender_id(std::string(b.sender_id));
    ++stats_.blocks;
    return true;
}

bool reader::decode_next(stored_message& out, bool& got) {
    got = false;
    while (!got) {
        if (block_in_.at_end())
            return fail(journal_errc::count_mismatch, "the stored block before offset " +
                                                          std::to_string(block_offset_) +
                                                          " holds fewer objects than it announces");
        if (auto ec = decoder_->next(block_in_, out.value, got)) {
            const auto limit = exceeded_limit(ec, decoder_->limits());
            const bool decoded_bytes = ec == proto_errc::reference_bytes_exceeded;
            return fail(
                ec, "cannot decode the stored object at offset " + std::to_string(block_offset_) +
                        ": " + ec.message() +
                        (decoded_bytes ? " (" + std::to_string(settings_.read_max_decoded_bytes) +
                                             " bytes, read.max_decoded_bytes)"
                         : limit.empty() ? std::string()
                                         : " (" + limit + ")"));
        }
    }
    out.offset = block_offset_++;
    out.sender_id = block_sender_;
    out.time_ms = block_time_ms_;
    --block_left_;
    return block_left_ != 0 || end_block();
}

// After the last announced message only reset ops may follow.
bool reader::end_block() {
    while (!block_in_.at_end()) {
        bool got = false;
        if (auto ec = decoder_->next(block_in_, scratch_, got))
            return fail(ec, "cannot decode the stored block before offset " +
                                std::to_string(block_offset_) + ": " + ec.message());
        if (got)
            return fail(journal_errc::count_mismatch, "the stored block before offset " +
                                                          std::to_string(block_offset_) +
                                                          " holds more objects than it announces");
    }
    if (auto ec = decoder_->close_payload())
        return fail(ec, "cannot decode the stored block before offset " +
                            std::to_string(block_offset_) + ": " + ec.message());
    decoder_.reset();
    return true;
}

bool reader::next(stored_message& out) {
    for (;;) {
        while (block_left_ > 0) {
            bool got = false;
            if (!decode_next(out, got)) return false;
            // The first block may begin before the offset asked for.
            if (offsets_are_blocks_ || out.offset >= floor_) {
                ++stats_.objects;
                return true;
            }
        }
        if (!open_ || finished_) return false;
        frame_view f;
        if (!read_frame(f)) return false;
        switch (f.header.kind) {
            case frame_kind::journal_block:
                if (!on_block(f)) return false;
                break;
            case frame_kind::gap:
                if (f.payload.size() != 16)
                    return fail(proto_errc::bad_message, "malformed gap frame from the daemon");
                gaps_.push_back({load_le<std::uint64_t>(f.payload.data()),
                                 load_le<std::uint64_t>(f.payload.data() + 8)});
                break;
            case frame_kind::goodbye:
                finished_ = true;
                // A cursor reader still sends its last ack (finish_cursor).
                if (options_.cursor.empty()) close();
                return false;
            case frame_kind::error: {
                auto e = decode_error(f.payload);
                return fail(
                    e ? std::error_code(static_cast<proto_errc>(e->code)) : proto_errc::bad_message,
                    "the daemon ended the stream: " +
                        (e ? e->text : std::string("malformed error frame")) +
                        (e && e->code == static_cast<std::uint32_t>(proto_errc::frame_too_large)
                             ? " (this reader accepts " + std::to_string(options_.max_frame_bytes) +
                                   " bytes with the frame header: read.max_block_bytes)"
                             : std::string()));
            }
            default:
                return fail(proto_errc::unexpected_frame,
                            "unexpected frame kind " +
                                std::to_string(static_cast<int>(f.header.kind)) +
                                " from the daemon");
        }
    }
}

std::error_code reader::ack(std::uint64_t next_offset) {
    if (!open_) return error_ ? error_ : std::error_code(client_errc::connection_lost);
    byte_buffer payload, frame;
    encode_read_ack({next_offset}, payload);
    append_frame(frame, frame_kind::ack, 0, payload.span());
    if (auto ec = write_all(frame.span())) {
        fail(client_errc::connection_lost, "cannot send the cursor's ack: " + ec.message());
        return error_;
    }
    return {};
}

std::error_code reader::finish_cursor(std::uint64_t next_offset) {
    if (auto ec = ack(next_offset)) return ec;
    byte_buffer bye;
    append_frame(bye, frame_kind::goodbye, 0, {});
    if (auto ec = write_all(bye.span())) {
        fail(client_errc::connection_lost, "cannot send the goodbye: " + ec.message());
        return error_;
    }
    // What is left of the current block is dropped: reading frames moves its bytes.
    block_left_ = 0;
    // Waits the idle timeout, even for a follower, and whatever the stop flag says.
    options_.follow = false;
    options_.stop = nullptr;
    options_.on_wait = nullptr;
    frame_view f;
    while (read_frame(f)) {
        if (f.header.kind == frame_kind::goodbye) {
            finished_ = true;
            close();
            return {};
        }
        if (f.header.kind != frame_kind::journal_block && f.header.kind != frame_kind::gap) break;
    }
    fail(client_errc::connection_lost, "the daemon did not confirm the cursor's position");
    return error_;
}

void reader::close() {
    if (!socket_.is_open()) return;
    std::error_code ignored;
    if (!finished_ && open_) {
        byte_buffer bye;
        append_frame(bye, frame_kind::goodbye, 0, {});
        link_.write_some(bye.span(), ignored);  // best effort: closing says the same
    }
    link_.shutdown();
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    open_ = false;
}

}  // namespace objwire::client
