#include "client/lib/reader_core.hpp"

#include <poll.h>

#include <algorithm>

#include <objwire/connection.hpp>
#include "proto/errors.hpp"
#include "proto/frame.hpp"

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

// The hello this reader says, as the protocol core sends it.
read_client::options core_options(const read_options& o, std::string token) {
    read_client::options c;
    hello& h = c.greeting;
    h.client_name = o.client_name;
    h.auth_token = std::move(token);
    h.read_from = o.from;
    h.follow = o.follow;
    h.read_sender = o.sender;
    h.read_at_end = o.at_end;
    h.read_last = o.last;
    h.read_since_ms = o.since_ms;
    h.read_cursor = o.cursor;
    h.request = o.request;
    c.max_frame_bytes = o.max_frame_bytes;
    c.read_block = read_block;
    return c;
}
}  // namespace

reader_core::reader_core(config::client_settings settings, read_options options)
    : settings_(std::move(settings)),
      options_(std::move(options)),
      socket_(io_),
      link_(socket_),
      objects_(block_limits(settings_)),
      resume_(settings_.resume_retry_for) {
    options_.max_frame_bytes = frame_limit(settings_, options_);
    // A stop ends a connect in progress too, not only the waits after it.
    link_.stop_with([this] { return stop_requested(); }, options_.stop_fd);
}

reader_core::~reader_core() {
    stop_async();
    // Gone without a goodbye, but what was acknowledged is said (best effort).
    if (open_) send_pending_ack();
    std::error_code ignored;
    socket_.close(ignored);
}

bool reader_core::fail(std::error_code ec, std::string text) {
    if (!error_) {
        error_ = ec;
        last_error_ = std::move(text);
    }
    open_ = false;
    objects_ = block_objects(block_limits(settings_));
    std::error_code ignored;
    socket_.close(ignored);
    return false;
}

std::error_code reader_core::write_all(std::span<const std::uint8_t> bytes) {
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

std::error_code reader_core::flush_output() {
    auto ec = write_all(core_->output().span());
    core_->output().clear();
    return ec;
}

std::error_code reader_core::open() {
    if (!invalid_options_.empty()) {
        fail(client_errc::invalid_options, invalid_options_);
        return error_;
    }
    if (auto ec = connect()) return ec;
    if (stopped_) return {};
    if (options_.request != read_request::none) {
        finished_ = true;
        close();
        return {};
    }
    start_ = floor_;
    resume_.connected(floor_, core_->offsets_are_blocks());
    return {};
}

std::error_code reader_core::connect() {
    const std::string where = settings_.to_host + ":" + std::to_string(settings_.to_port);
    std::string token, why;
    if (!read_token_file(settings_, token, why)) {
        fail(client_errc::connect_failed, why);
        return error_;
    }
    if (auto ec = link_.connect(settings_, why)) {
        if (ec == asio::error::operation_aborted && stop_requested()) {
            stopped_ = true;  // not an error: the caller asked
            return {};
        }
        fail(ec, why);
        return error_;
    }
    std::error_code ignored;
    socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
    open_ = true;
    finished_ = false;
    auto opts = core_options(options_, std::move(token));
    opts.max_block_objects = settings_.read_max_block_objects;
    if (core_) bytes_before_ += core_->wire_bytes_in();
    core_.emplace(std::move(opts));
    if (auto ec = flush_output()) {
        fail(client_errc::connection_lost,
             "cannot send the hello to " + where + ": " + ec.message());
        return error_;
    }
    if (!next_event()) return error_;  // failed, or stopped (no error)
    const auto& w = core_->peer();
    // A daemon without welcome field 20 started at `from`.
    floor_ =
        std::max({w.read_start, options_.skip_below, options_.cursor.empty() ? options_.from : 0});
    return {};
}

bool reader_core::wait_unless_stopped(std::chrono::milliseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    for (auto now = std::chrono::steady_clock::now(); !stop_requested() && now < until;
         now = std::chrono::steady_clock::now()) {
        auto left = std::chrono::ceil<std::chrono::milliseconds>(until - now);
        // Without a descriptor to wake on, the flag is looked at as often as a wait for the
        // daemon looks at it.
        if (options_.stop && options_.stop_fd < 0) left = std::min(left, stop_poll);
        pollfd p{options_.stop_fd, POLLIN, 0};  // fd -1: a plain wait
        if (::poll(&p, 1, static_cast<int>(left.count())) > 0) break;
    }
    return !stop_requested();
}

bool reader_core::reconnect() {
    if (!options_.follow || !options_.reconnect || stopped_ || finished_ || !error_) return false;
    for (;;) {
        const auto pause = resume_.after_failure(error_, std::chrono::steady_clock::now());
        if (!pause) return false;
        const std::uint64_t at = resume_.resume_at();
        if (options_.on_reconnect) options_.on_reconnect(last_error_, at);
        if (!wait_unless_stopped(*pause)) {
            // A stop, not a failure: the reason the connection was lost stays in last_error().
            stopped_ = true;
            error_.clear();
            return false;
        }
        // The next connection starts at the first offset not handed out; a cursor's daemon may
        // start before it (at its last stored ack), and what is below is not handed out.
        options_.at_end = false;
        options_.last = 0;
        options_.since_ms = 0;
        options_.from = at;
        options_.skip_below = at;
        error_.clear();
        const auto ec = connect();
        if (stopped_) return false;  // the stop came during the hello
        if (ec) continue;
        ++reconnections_;
        resume_.connected(floor_, core_->offsets_are_blocks());
        if (!options_.cursor.empty() && acked_ > core_->peer().read_start && ack(acked_)) continue;
        last_error_.clear();
        return true;
    }
}

std::optional<read_client::event> reader_core::next_event() {
    const auto timeout = options_.follow ? options_.follow_idle_timeout : options_.idle_timeout;
    const bool forever = timeout.count() == 0;
    // With a stop flag the wait is cut in slices that look at it.
    const bool stoppable = options_.stop || async_started_;
    const std::chrono::milliseconds slice = stoppable ? stop_poll
                                            : forever ? std::chrono::hours(1)
                                                      : timeout;
    std::chrono::milliseconds waited{0};
    for (;;) {
        const auto e = core_->next();
        stats_.wire_bytes_in = bytes_before_ + core_->wire_bytes_in();
        if (e == read_client::event::failed) {
            fail(core_->error(), core_->error_detail());
            return std::nullopt;
        }
        if (e != read_client::event::need_more) return e;
        if (ack_unsent_ && send_pending_ack()) return std::nullopt;
        if (stop_requested()) {
            stopped_ = true;
            return std::nullopt;
        }
        std::error_code ec;
        // A stop descriptor ends the wait at once; without one the slices look at the flag.
        const std::size_t got =
            link_.read_some(core_->prepare(), forever ? slice : std::min(slice, timeout - waited),
                            ec, options_.stop_fd >= 0);
        if (ec == asio::error::operation_aborted && stop_requested()) continue;
        if (ec == client_errc::timed_out) {
            if (options_.on_wait) options_.on_wait();
            if (!open_) return std::nullopt;  // on_wait's write failed
            waited += slice;
            if (forever || waited < timeout) continue;
            fail(client_errc::timed_out,
                 "no data from the daemon within " + std::to_string(timeout.count()) + " ms");
            return std::nullopt;
        }
        if (ec) {
            const bool eof = ec == asio::error::eof;
            fail(client_errc::connection_lost,
                 eof ? "the daemon closed the connection before the end of the stream"
                     : "connection lost: " + ec.message());
            return std::nullopt;
        }
        core_->commit(got);
    }
}

void reader_core::on_gap() {
    const read_gap& g = core_->gap();
    // A reconnection may hear of a gap again (a cursor's daemon starts before it).
    if (!gaps_.empty() && g.end <= gaps_.back().end) return;
    gaps_.push_back({g.first, g.end});
    resume_.gap(g.end);
}

bool reader_core::on_block() {
    const auto& b = core_->block();
    if (auto ec = objects_.open(b)) return fail(ec, objects_.error_detail());
    block_time_ms_ = b.header.time_ms;
    // Several blocks in a row come from one sender: they share one copy of its id.
    if (block_sender_.str() != b.sender_id)
        block_sender_ = shared_sender_id(std::string(b.sender_id));
    ++stats_.blocks;
    return true;
}

bool reader_core::next(stored_message& out) {
    for (;;) {
        if (next_here(out)) {
            resume_.handed_out(out.offset);
            return true;
        }
        if (!reconnect()) return false;
    }
}

bool reader_core::next_here(stored_message& out) {
    for (;;) {
        while (objects_.left() > 0) {
            bool got = false;
            if (auto ec = objects_.next(out.value, out.offset, got))
                return fail(ec, objects_.error_detail());
            if (!got) break;
            out.sender_id = block_sender_;
            out.time_ms = block_time_ms_;
            // The first block may begin before the offset asked for.
            if (core_->offsets_are_blocks() || out.offset >= floor_) {
                ++stats_.objects;
                return true;
            }
        }
        if (!open_ || finished_) return false;
        const auto e = next_event();
        if (!e) return false;
        if (*e == read_client::event::block && !on_block()) return false;
        if (*e == read_client::event::gap) on_gap();
        if (*e == read_client::event::end) {
            finished_ = true;
            // A cursor reader still sends its last ack (finish_cursor).
            if (options_.cursor.empty()) close();
            return false;
        }
    }
}

std::error_code reader_core::ack(std::uint64_t next_offset) {
    if (!open_) return error_ ? error_ : std::error_code(client_errc::connection_lost);
    // Sent before the next wait for the daemon (or with the goodbye): acks in between
    // coalesce, so acking every object costs no syscall per object.
    if (next_offset > acked_) ack_unsent_ = true;
    acked_ = std::max(acked_, next_offset);
    return {};
}

std::error_code reader_core::send_pending_ack() {
    if (!std::exchange(ack_unsent_, false)) return {};
    core_->ack(acked_);
    if (auto ec = flush_output()) {
        fail(client_errc::connection_lost, "cannot send the cursor's ack: " + ec.message());
        return error_;
    }
    return {};
}

std::error_code reader_core::finish_cursor(std::uint64_t next_offset) {
    if (!open_) return error_ ? error_ : std::error_code(client_errc::connection_lost);
    acked_ = std::max(acked_, next_offset);
    ack_unsent_ = false;
    core_->ack(acked_);
    core_->goodbye();
    if (auto ec = flush_output()) {
        fail(client_errc::connection_lost, "cannot send the goodbye: " + ec.message());
        return error_;
    }
    if (await_goodbye()) return {};
    fail(client_errc::connection_lost, "the daemon did not confirm the cursor's position");
    return error_;
}

bool reader_core::await_goodbye() {
    // What is left of the current block is dropped: reading frames moves its bytes.
    objects_ = block_objects(block_limits(settings_));
    // Waits the idle timeout, even for a follower, and whatever the stop flag says.
    options_.follow = false;
    options_.stop = nullptr;
    options_.on_wait = nullptr;
    const auto e = next_event();
    if (e != read_client::event::end || core_->current() != read_client::state::finished)
        return false;
    finished_ = true;
    close();
    return true;
}

void reader_core::close() {
    if (!socket_.is_open()) return;
    std::error_code ignored;
    const auto state = core_ ? core_->current() : read_client::state::failed;
    const bool streaming = open_ && (state == read_client::state::streaming ||
                                     state == read_client::state::stream_ended);
    if (streaming && !options_.cursor.empty()) {
        if (ack_unsent_) {
            ack_unsent_ = false;
            core_->ack(acked_);
        }
        // The daemon answers a cursor reader's goodbye once it has let go of the name: a reader
        // started after close() returns is not refused as "in use".
        core_->goodbye();
        if (!flush_output() && await_goodbye()) return;
    } else if (streaming && !finished_) {
        core_->goodbye();
        link_.write_some(core_->output().span(), ignored);  // best effort: closing says the same
        core_->output().clear();
    }
    if (!socket_.is_open()) return;  // a failed goodbye closed it
    link_.shutdown();
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    open_ = false;
}

}  // namespace objwire::client
