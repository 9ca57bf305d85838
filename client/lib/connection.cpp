#include "client/lib/connection_core.hpp"
#include "client/lib/foreign_peer.hpp"

#include <type_traits>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>

#include "proto/errors.hpp"

#include "client/lib/coarse_clock.hpp"
#include "client/lib/shared_codec_measures.hpp"

namespace objwire::client {
namespace {

constexpr std::chrono::milliseconds ack_timeout{30'000};

compression_options compression_from(const config::client_settings& s) {
    compression_options c;  // the texts were validated when the settings were loaded
    if (auto m = parse_mode(s.compression_policy)) c.mode = *m;
    if (auto codec = parse_codec(s.compression_codec)) c.codec = *codec;
    c.level = static_cast<int>(s.compression_level);
    c.min_frame_bytes = s.compression_min_frame_bytes;
    if (s.link_bandwidth != "auto") {
        if (auto bps = config::parse_bandwidth(s.link_bandwidth)) c.link_bits_per_second = *bps;
    }
    c.shared = &shared_codec_measures::of_process();
    return c;
}

class client_category_impl final : public std::error_category {
  public:
    const char* name() const noexcept override { return "objwire.client"; }
    std::string message(int ev) const override {
        switch (static_cast<client_errc>(ev)) {
            case client_errc::connect_failed:
                return "cannot connect";
            case client_errc::timed_out:
                return "timed out";
            case client_errc::connection_lost:
                return "connection lost";
            case client_errc::not_open:
                return "connection is not open";
            case client_errc::invalid_options:
                return "options out of range";
            case client_errc::input_mismatch:
                return "the input is not the one its sender id stored";
            case client_errc::too_many_in_flight:
                return "too many asynchronous sends in flight";
            case client_errc::interrupted:
                return "interrupted";
        }
        return "objwire.client error " + std::to_string(ev);
    }
};

// The words of a failure that came with none of its own.
std::string reason_of(std::error_code ec) {
    if (ec == client_errc::not_open)
        return "the connection is not open: open() it first (again after close() or a failure)";
    return ec.message();
}

// A stream needs an id to be resumed: without one configured, a random one per connection
// object (so two clients never share one by accident).
config::client_settings with_sender_id(config::client_settings s) {
    if (!s.sender_id.empty()) return s;
    std::random_device rd;
    const std::uint64_t r = (std::uint64_t{rd()} << 32) ^ rd();
    char id[32];
    std::snprintf(id, sizeof id, "objwire-%016llx", static_cast<unsigned long long>(r));
    s.sender_id = id;
    return s;
}

sender::options sender_options(const config::client_settings& s, std::string name, bool named_id) {
    sender::options o;
    // A named stream can be rerun: its input digest is reported for the check.
    o.input_digests = named_id;
    o.greeting.client_name = std::move(name);
    o.greeting.max_frame_bytes = s.max_frame_bytes;
    o.batch_max_bytes = s.batch_max_bytes;
    o.greeting.codecs = built_codecs();
    o.compression = compression_from(s);
    o.greeting.table_budget = s.table_budget;
    // Validated when the settings were loaded; an unparsable text keeps the default.
    if (auto policy = reset_policy::parse(s.reset_policy)) o.encoding.reset = *policy;
    o.encoding.transient = s.transient;      // [types.NAME] transient: never sent
    o.encoding.lazy.fields = s.lazy_fields;  // [lazy]: sent compressed on their own
    o.encoding.lazy.min_bytes = s.lazy_min_bytes;
    if (auto codec = parse_codec(s.lazy_codec)) o.encoding.lazy.codec = *codec;
    o.greeting.sender_id = s.sender_id;
    o.greeting.relay_path = s.relay_path;
    // An unreadable token file fails connect_socket() with its reason.
    std::string token, unused;
    if (read_token_file(s, token, unused)) o.greeting.auth_token = token;
    o.resumable = s.resume_retry_for.count() > 0;  // keeps unacknowledged frames to resend
    o.max_replay_bytes = s.resume_max_replay_bytes;
    o.max_in_flight = s.max_in_flight;  // the daemon's credit (welcome, acks) may lower it
    return o;
}

}  // namespace

const std::error_category& client_category() noexcept {
    static const client_category_impl instance;
    return instance;
}

connection_core::connection_core(config::client_settings settings, std::string client_name)
    : connection_core(!settings.sender_id.empty(), std::move(settings), std::move(client_name)) {}

connection_core::connection_core(bool named_id, config::client_settings&& settings,
                                 std::string&& client_name)
    : settings_(with_sender_id(std::move(settings))),
      socket_(io_),
      core_(sender_options(settings_, std::move(client_name), named_id)) {
    mu_.on_missed([this] { ask_missed_turn(); });
    // Without the eventfd, waits still end at interrupt(): at their next look at the flag.
    interrupt_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    // A connect or TLS handshake in progress ends at interrupt() too.
    stream_.stop_with([this] { return interrupted_.load(); }, interrupt_fd_);
}

connection_core::~connection_core() {
    stop_async();
    stop_linger();
    std::error_code ignored;
    socket_.close(ignored);
    if (interrupt_fd_ >= 0) ::close(interrupt_fd_);
}

void connection_core::interrupt() noexcept {
    interrupted_ = true;
    if (interrupt_fd_ < 0) return;
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(interrupt_fd_, &one, sizeof one);
}

void connection_core::interrupt_now() noexcept {
    no_grace_ = true;  // before the flag the waits look at
    interrupt();
}

std::error_code connection_core::wait_socket(short events, std::chrono::milliseconds wait,
                                             bool interruptible) {
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + wait;
    pollfd p[2] = {{socket_.native_handle(), events, 0}, {interrupt_fd_, POLLIN, 0}};
    for (;;) {  // ends by the deadline at the latest
        if (interruptible && interrupted_) return client_errc::interrupted;
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now());
        if (left.count() <= 0) return client_errc::timed_out;
        const int r = ::poll(p, interruptible ? 2 : 1, static_cast<int>(left.count()));
        if (r < 0 && errno != EINTR) return {errno, std::system_category()};
        if (r > 0 && p[0].revents != 0) return {};
    }
}

std::error_code connection_core::wait_for_daemon(short events, std::chrono::milliseconds wait) {
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + wait;
    if (!interrupted_) {
        const auto w = wait_socket(events, wait, true);
        if (w != client_errc::interrupted) return w;
    }
    // A reconnect is given up at once. A live daemon that answers does so within
    // interrupted_wait: its acknowledgements of what is in flight still count; one that does
    // not answer is not waited for.
    if (state_.resuming() || no_grace_) return client_errc::interrupted;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now());
    const auto w = wait_socket(
        events, std::clamp(left, std::chrono::milliseconds(0), interrupted_wait), false);
    return w == client_errc::timed_out ? std::error_code(client_errc::interrupted) : w;
}

bool connection_core::pause_unless_interrupted(std::chrono::milliseconds pause) {
    using clock = std::chrono::steady_clock;
    const auto until = clock::now() + pause;
    pollfd p{interrupt_fd_, POLLIN, 0};  // fd -1: a plain sleep
    for (auto now = clock::now(); !interrupted_ && now < until; now = clock::now())
        ::poll(&p, 1,
               static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(until - now).count()));
    return !interrupted_;
}

connection_stats connection_core::stats() const {
    std::lock_guard lock(mu_);
    stats_.objects_sent = core_.messages_added();
    stats_.objects_acked = core_.messages_acked();  // over every reconnect
    stats_.frames = core_.frames_sent();
    stats_.frames_resent = core_.frames_resent();
    stats_.receiver_table_peak_bytes = core_.last_ack().table_peak_bytes;
    stats_.window_bytes = core_.window_bytes();
    stats_.peak_unacked_bytes = core_.peak_unacked_bytes();
    stats_.unacked_bytes = core_.unacked_bytes();
    return stats_;
}

// While resuming, a failure is an attempt's: its reason is kept for the resume's own report.
std::error_code connection_core::fail(std::error_code ec, std::string text) {
    if (state_.resuming()) {
        attempt_error_ = std::move(text);
        return ec;
    }
    if (last_error_.empty()) last_error_ = std::move(text);
    state_.fail();
    return ec;
}

void connection_core::close_socket() {
    std::error_code ignored;
    socket_.close(ignored);
}

// Runs one asynchronous operation to completion or until the deadline, then cancels it.
template <class Start>
std::error_code connection_core::run_with_deadline(Start&& start, std::chrono::milliseconds timeout,
                                                   std::size_t* bytes) {
    std::optional<std::error_code> result;
    start([&](std::error_code ec, auto n) {
        result = ec;
        if constexpr (std::is_integral_v<decltype(n)>) {
            if (bytes) *bytes = n;
        }
    });
    io_.restart();
    io_.run_for(timeout);
    if (!result) {
        std::error_code ignored;
        socket_.cancel(ignored);
        io_.restart();
        io_.run();
        return client_errc::timed_out;
    }
    return *result;
}

std::error_code connection_core::open() {
    std::unique_lock lock(mu_);
    if (!invalid_options_.empty()) return fail(client_errc::invalid_options, invalid_options_);
    state_.connect();
    if (auto ec = connect_socket()) return ec;
    state_.connected();
    feed_.start(steady_now_ns());
    auto ec = handshake();
    // A daemon that turns us away at once is an error to report, not retry: only a welcomed
    // stream resumes.
    if (!ec) state_.welcomed();
    observe_progress(true);
    if (ec) return ec;
    learn_stored();
    lock.unlock();
    start_linger();
    lock.lock();
    return settle({});
}

std::error_code connection_core::open(std::chrono::milliseconds retry_for) {
    const auto deadline = std::chrono::steady_clock::now() + retry_for;
    auto backoff = std::chrono::milliseconds(50);
    for (;;) {
        auto ec = open();
        if (ec != client_errc::connect_failed) return ec;
        if (std::chrono::steady_clock::now() + backoff >= deadline) return ec;
        {
            std::lock_guard lock(mu_);
            close_socket();
            last_error_.clear();  // the next attempt's reason replaces this one
        }
        // A backoff between attempts, not a poll.
        if (!pause_unless_interrupted(backoff)) {
            std::lock_guard lock(mu_);
            return fail(client_errc::interrupted, "interrupted while waiting to connect");
        }
        backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
    }
}

std::error_code connection_core::settle(std::error_code ec) {
    if (!ec) last_error_.clear();
    // Every failure has its words: one that set none (not open, say) gets the code's own.
    if (ec && last_error_.empty()) last_error_ = reason_of(ec);
    arm_linger();  // every public call ends here
    return ec;
}

std::error_code connection_core::take_background_error() {
    return std::exchange(background_error_, {});
}

std::error_code connection_core::connect_socket() {
    std::string token, why;
    if (!read_token_file(settings_, token, why)) return fail(client_errc::connect_failed, why);
    // The one connect of every client (client/lib/daemon_link.*): resolve, connect within
    // client.connect_timeout, the socket options, TLS. A reconnect does not outlast the retry
    // window.
    std::error_code ec;
    if (state_.resuming()) {
        auto bounded = settings_;
        bounded.connect_timeout =
            window_.wait_for(settings_.connect_timeout, std::chrono::steady_clock::now());
        ec = stream_.connect(bounded, why);
    } else {
        ec = stream_.connect(settings_, why);
    }
    if (ec) return fail(ec, why);
    replied_ = false;
    return {};
}

bool welcomed(sender::state st) {
    return st == sender::state::streaming || st == sender::state::closing;
}

// Not write_output(): frames kept from a broken connection may count as in flight, and no
// ack will come for them before the welcome.
std::error_code connection_core::handshake() {
    if (auto ec = write_all(core_.output()))
        return fail(client_errc::connection_lost, "cannot send the hello: " + ec.message());
    core_.consume_output();
    while (core_.current() == sender::state::greeting)
        if (auto e = read_replies(true)) return e;
    if (!welcomed(core_.current()))
        return fail(proto_errc::bad_handshake, "handshake refused: " + core_.error_detail());
    return {};
}

std::error_code connection_core::send(const message& m) {
    return send_source(m);
}

std::error_code connection_core::send(const typed_source& m) {
    return send_source(m);
}

template <class Source>
std::error_code connection_core::send_source(const Source& m) {
    std::lock_guard lock(mu_);
    if (auto ec = take_background_error()) return ec;
    return settle(send_locked(m));
}

template <class Source>
std::error_code connection_core::send_locked(const Source& m) {
    if (!state_.is_open()) return client_errc::not_open;
    if (rerun_.skipping()) {
        // Reruns compare digests of messages; a typed source is not skipped by itself.
        if constexpr (std::is_same_v<Source, message>) {
            return skip_message(m);
        } else {
            return client_errc::input_mismatch;
        }
    }
    const bool was_empty = core_.open_batch_bytes() == 0;
    if (auto ec = core_.add(m)) {
        if (core_.current() == sender::state::failed) return fail(ec, core_.error_detail());
        last_error_ = "message refused: " + ec.message();
        // The limits are the daemon's (its welcome): say which and what it is set to.
        if (const auto limit = exceeded_limit(ec, core_.peer().limits); !limit.empty())
            last_error_ += " (objwired's limit: " + limit + ")";
        return ec;
    }
    if (!core_.output().empty() || core_.frames_waiting()) {  // a frame was sealed
        auto ec = write_output();
        // What is in the open batch now waited behind that write, not for the batch to fill.
        linger_.opened(coarse_now_ns());
        return ec;
    }
    // Linger: a batch whose first message has waited long enough goes out even if small. The
    // coarse clock keeps this check cheap on every send; linger holds to within one tick.
    const std::uint64_t now = coarse_now_ns();
    if (was_empty) linger_.opened(now);
    if (linger_.due(now)) return flush_locked();
    return {};
}

std::error_code connection_core::flush() {
    std::lock_guard lock(mu_);
    if (auto ec = take_background_error()) return ec;
    return settle(flush_locked());
}

std::error_code connection_core::flush_locked() {
    if (!state_.is_open()) return client_errc::not_open;
    core_.seal();
    return write_output();
}

// Writes every sealed frame before it returns, so the producer never gets ahead of the window:
// the sender offers frames only while the unacknowledged bytes stay within min(max_in_flight,
// the daemon's credit), and while it holds some back we wait for acks.
std::error_code connection_core::write_output() {
    // Take in whatever acks arrived first: they may make room.
    if (auto ec = read_replies(false)) return ec;
    while (!core_.output().empty() || core_.frames_waiting()) {
        if (core_.output().empty()) {
            const std::uint64_t wait_start = steady_now_ns();
            auto ec = read_replies(true);
            const std::uint64_t waited_for_acks = steady_now_ns() - wait_start;
            feed_.blocked_on_acks(waited_for_acks);
            stats_.blocked_ns += waited_for_acks;
            if (ec) return ec;
            continue;
        }
        if (auto ec = write_released()) return ec;
    }
    return {};
}

std::error_code connection_core::write_released() {
    // Nothing written before waits for an ack: the wait these frames start begins now.
    observe_progress(core_.messages_acked() >= written_messages_);
    auto out = core_.output();
    const std::uint64_t calls_before = stats_.write_calls;
    if (auto ec = write_all(out)) {
        read_last_words();
        if (core_.current() == sender::state::failed)
            return resume_after(core_.error(), core_.error_detail());
        return resume_after(client_errc::connection_lost, "write failed: " + ec.message());
    }
    core_.consume_output();
    written_messages_ = core_.messages_sealed();
    measure(stats_.write_calls - calls_before > 1);  // more than one call: the buffer was full
    return {};
}

// The daemon may have said why before closing: read as a resume's attempt would, so that a
// failure here is neither resumed nor reported (the resume that follows reports).
void connection_core::read_last_words() {
    if (!state_.start_resume()) return;
    read_replies(false);
    state_.end_resume();
}

// One write system call per attempt, each counted: the whole output in one call unless the
// kernel's send buffer is full, and then we wait until it has room (time counted as blocked).
std::error_code connection_core::write_all(std::span<const std::uint8_t> bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {  // each round writes something or waits, under a deadline
        std::error_code ec;
        const std::size_t n =
            stream_.write_some(bytes.subspan(done), ec);  // send, or SSL_write on TLS
        ++stats_.write_calls;
        done += n;
        stats_.wire_bytes_out += n;
        if (!ec) continue;
        if (ec != asio::error::would_block && ec != asio::error::try_again) return ec;
        if (auto werr = wait_writable()) return werr;
    }
    return {};
}

std::error_code connection_core::wait_writable() {
    const std::uint64_t start = steady_now_ns();
    auto ec = wait_for_daemon(POLLOUT, ack_timeout);
    const std::uint64_t waited = steady_now_ns() - start;
    feed_.blocked_on_socket(waited);
    stats_.blocked_ns += waited;
    return ec;
}

void connection_core::measure(bool congested) {
    const std::uint64_t now = steady_now_ns();
    auto& policy = core_.compression();
    const auto interval = feed_.end_interval(now);
    policy.on_interval(interval.elapsed_ns, interval.blocked_ns, interval.ack_blocked_ns);
    const auto waited = feed_.link_sample(congested, now);
    if (!waited) return;
    if (auto sample = link_.sample(socket_.native_handle(), now, *waited))
        policy.on_link_sample(sample->bits_per_second, sample->lower_bound);
}

// An ack that moved the count restarts the retry window, and so does a moment when nothing
// written waits for an ack: a connection idle since its open (a producer with nothing to say,
// or one of many opened before any sends) has not failed to progress. Not while resuming: the
// window of a reconnect loop ends where it did when the loop began.
void connection_core::observe_progress(bool idle) {
    if (state_.resuming() || !window_.enabled()) return;
    window_.observe(core_.messages_acked(), !idle, std::chrono::steady_clock::now());
}

void connection_core::observe_progress() {
    observe_progress(core_.messages_acked() >= written_messages_);
}

std::error_code connection_core::read_replies(bool block) {
    observe_progress();
    if (!block && !stream_.readable_now()) return {};
    // A resumable connection waits for the daemon no longer than its retry window has left.
    const auto wait = state_.after_welcome()
                          ? window_.wait_for(ack_timeout, std::chrono::steady_clock::now())
                          : ack_timeout;
    // objwired answers a hello at once: a peer silent since the connect may be another server,
    // waiting for a request of its own protocol.
    const std::string unanswered =
        replied_ ? ""
                 : ": nothing came back from " +
                       config::format_host_port(settings_.to_host, settings_.to_port) +
                       ", is it objwired?";
    const std::string silent =
        "no reply from the daemon within " + std::to_string(wait.count()) + " ms" + unanswered;
    if (block && !stream_.readable_now()) {
        if (const auto w = wait_for_daemon(POLLIN, wait); w == client_errc::interrupted)
            return fail(w, state_.resuming() || no_grace_
                               ? "interrupted while waiting for the daemon"
                               : "interrupted; no reply from the daemon within " +
                                     std::to_string(interrupted_wait.count()) + " ms");
        else if (w == client_errc::timed_out)
            return resume_after(w, silent);
    }
    auto space = core_.prepare();
    std::size_t n = 0;
    std::error_code ec;
    if (stream_.secure()) {
        // The bytes there may be TLS records without data (session tickets): nothing yet.
        n = stream_.read_some(space, block ? wait : std::chrono::milliseconds(0), ec);
        if (!block && ec == client_errc::timed_out) return {};
    } else {
        ec = run_with_deadline(
            [&](auto handler) {
                socket_.async_read_some(asio::buffer(space.data(), space.size()), handler);
            },
            wait, &n);
    }
    // A TLS alert (say, the daemon wants a client certificate) refuses us: no retrying.
    if (is_tls_error(ec)) return fail(proto_errc::unauthorized, "refused in TLS: " + ec.message());
    if (ec) {
        if (ec == client_errc::timed_out) return resume_after(ec, silent);
        return resume_after(client_errc::connection_lost,
                            "connection lost: " + ec.message() + unanswered);
    }
    if (!replied_ && n > 0) {  // the first bytes of this connection: a welcome, or not objwired
        replied_ = true;
        if (auto why = foreign_reply(space.first(n)); !why.empty())
            return fail(
                proto_errc::bad_handshake,
                why + " (" + config::format_host_port(settings_.to_host, settings_.to_port) + ")");
    }
    stats_.wire_bytes_in += n;
    core_.commit(n);
    if (auto pe = core_.process()) return resume_after(pe, core_.error_detail());
    return {};
}

std::error_code connection_core::close() {
    wait_started_jobs();
    std::unique_lock lock(mu_);
    auto background = take_background_error();
    auto ec = close_locked();
    lock.unlock();
    stop_linger();
    if (background && !ec) ec = background;
    lock.lock();
    return settle(ec);
}

std::error_code connection_core::close_locked() {
    if (!state_.is_open())
        return last_error_.empty() ? client_errc::not_open
                                   : std::error_code(client_errc::connection_lost);
    // A rerun's input that is not the stored one sent nothing: the connection still ends
    // with a goodbye, and close() reports the mismatch.
    check_skipped_all();
    state_.drain();
    core_.finish();
    while (core_.current() == sender::state::closing) {
        // After a resume, frames may again wait for room in the window.
        if (auto ec = write_output()) return ec;
        if (core_.current() != sender::state::closing) break;
        if (auto ec = read_replies(true)) return ec;
    }
    stream_.shutdown();  // TLS close_notify
    std::error_code ignored;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    close_socket();
    state_.close();
    if (!core_.all_acked())
        return fail(client_errc::connection_lost, "daemon closed before acknowledging everything");
    if (rerun_.mismatch()) return client_errc::input_mismatch;
    return {};
}

std::error_code connection_core::poll(std::chrono::milliseconds wait) {
    std::lock_guard lock(mu_);
    if (auto ec = take_background_error()) return ec;
    return settle(poll_locked(wait));
}

std::error_code connection_core::poll_locked(std::chrono::milliseconds wait) {
    if (!state_.is_open()) return client_errc::not_open;
    // The connection has no thread of its own: an idle producer's last objects leave when
    // poll() finds their batch older than batch.linger, so the wait ends by then.
    const bool batch_open = core_.open_batch_bytes() > 0;
    if (batch_open) wait = linger_.cut(wait, coarse_now_ns());
    const auto lingered = [&] { return batch_open && linger_.due(coarse_now_ns()); };
    if (!stream_.readable_now()) {
        pollfd p{socket_.native_handle(), POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0)
            return lingered() ? flush_locked() : std::error_code{};
    }
    if (auto ec = read_replies(true)) return ec;
    if (lingered()) return flush_locked();
    // Frames a resume left waiting for room in the window go out as acks make it.
    return core_.frames_waiting() ? write_output() : std::error_code{};
}

}  // namespace objwire::client
