#include "daemon/serve/session.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <asio/experimental/as_tuple.hpp>
#include <asio/experimental/awaitable_operators.hpp>
#include <cstring>
#include <stdexcept>

#include "daemon/serve/credit_share.hpp"
#include "daemon/serve/log_text.hpp"
#include "daemon/serve/refusal.hpp"
#include "daemon/serve/roles.hpp"
#include "daemon/serve/server.hpp"
#include "daemon/sinks/relay_path.hpp"
#include "daemon/telemetry/warning_log.hpp"
#include "proto/errors.hpp"
#include "proto/journal_block.hpp"
#include "proto/util/counted.hpp"

namespace objwire::daemon {
namespace {

constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);

// A sender's last-seen time, in the Unix seconds Prometheus expects of a timestamp.
double unix_seconds_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

connection_guard::limits guard_limits(const config::daemon_settings& s) {
    connection_guard::limits l;
    l.idle_timeout = s.idle_timeout;
    l.min_read_rate = s.min_read_rate;
    l.read_rate_window = s.read_rate_window;
    return l;
}

// The welcome's codecs: none always, and each name compression.accept lists (the schema
// checked them); the receiver keeps only those built in.
std::uint32_t accepted_codecs(const std::vector<std::string>& names) {
    std::uint32_t mask = 1u << static_cast<unsigned>(codec_id::none);
    for (const auto& name : names)
        if (const auto c = parse_codec(name)) mask |= 1u << static_cast<unsigned>(*c);
    return mask;
}

// The table budget is the most a sender may have; admit_sender() lowers it to its grant.
receiver::options receiver_options(server& srv) {
    const auto& s = srv.settings();
    receiver::options o;
    o.limits.table_budget = s.table_budget;
    o.limits.max_depth = s.max_depth;
    o.limits.max_string_bytes = s.max_string_bytes;
    o.limits.max_elements = s.max_elements;
    o.limits.max_frame_bytes = s.max_frame_bytes;
    o.limits.max_reference_bytes = s.max_reference_bytes;
    o.max_decompression_ratio = s.max_decompression_ratio;
    // The credit is the cap hold_reading() enforces: a sender that keeps to it is never paused
    // (docs/PROTOCOL.md section 1.4), one that ignores it (an older client) still is.
    o.credit_bytes = s.max_buffered_bytes;
    o.codecs = accepted_codecs(s.compression_accept);
    o.sink = srv.sink().describe();
    o.read_block = s.read_buffer;
    o.pool = &srv.read_buffers();
    o.admit_on_hello = false;  // session::admit() answers the hello
    o.fresh_frames = srv.sink().takes_payloads() && journal_block_can_hold(o.limits);
    // Stored whole, a fresh frame's messages are never read: the receiver only checks it, and
    // under a table smaller than the journal's delivers those of a frame that evicted.
    o.check_fresh_frames = o.fresh_frames;
    o.stored_table_budget = journal_block_limits().table_budget;
    return o;
}

// What an exception says. The two sides of a session end together: when one throws, the
// other is cancelled, and asio reports both; the first is the cause.
std::string exception_text(std::exception_ptr e) {
    try {
        std::rethrow_exception(e);
    } catch (const asio::multiple_exceptions& both) {
        return exception_text(both.first_exception());
    } catch (const std::exception& error) {
        return std::string("exception: ") + error.what();
    } catch (...) {
        return "an unknown exception";
    }
}

}  // namespace

session::session(server& srv, asio::ip::tcp::socket socket)
    : server_(srv),
      stream_io_(std::move(socket), srv.tls_context()),
      watchdog_(stream_io_.get_executor()),
      wake_(stream_io_.get_executor()),
      peer_(stream_io_.peer_name()),
      allowance_({srv.settings().max_stored_ratio, srv.settings().max_stored_wire_ratio}),
      receiver_(receiver_options(srv)),
      guard_(guard_limits(srv.settings())) {
    // Never expires: only cancel() ends a wait on it (wake()).
    wake_.expires_at(never);
}

session::~session() {
    release_sender();
}

void session::stop() {
    asio::post(stream_io_.get_executor(), [self = shared_from_this()] {
        // A sink waiting on a peer gives it the grace, less the time to end its waits.
        if (self->stream_) {
            const auto grace = self->server_.settings().shutdown_grace;
            self->stream_->abandon(
                std::max(grace - 2 * sink_stream::left_window, std::chrono::milliseconds(0)));
        }
        switch (self->state_.stop()) {
            case session_phase::stalled:
                self->drop_stalled();
                break;
            case session_phase::finishing:  // the last acks need not wait for the sync
                self->expedite();
                break;
            default:
                break;
        }
        self->cancel_read();
        self->wake();  // a paused or stalled read side, or one waiting for its sender id, too
    });
}

// Only the read is cancelled: a write in progress must finish, or the peer would get half a
// frame.
void session::cancel_read() {
    if (read_cancel_.slot().has_handler()) read_cancel_.emit(asio::cancellation_type::terminal);
}

void session::wake() {
    wake_.cancel();
}

asio::awaitable<void> session::wait_for_wake(time_point until) {
    const bool timed = until != never;
    if (timed) set_deadline(read_due_, until);
    co_await wake_.async_wait(use_tuple);
    if (timed) read_due_ = never;
}

void session::set_deadline(time_point& deadline, time_point when) {
    deadline = when;
    watchdog_.cancel();  // it may sleep until a later one
}

// The watchdog of asio's timeout example: the deadlines are moved freely, the watchdog wakes
// at the earliest one as it stands when it looks.
asio::awaitable<void> session::watchdog() {
    auto self = shared_from_this();
    while (watching_) {
        watchdog_.expires_at(std::min({handshake_deadline_, guard_due_, read_due_}));
        co_await watchdog_.async_wait(use_tuple);
        if (!watching_) break;
        const auto now = std::chrono::steady_clock::now();
        if (now >= handshake_deadline_) on_handshake_deadline();
        if (now >= guard_due_) check_guard(now);
        if (now >= read_due_) {
            read_due_ = never;
            wake();  // the read side's own deadline: it looks at its condition again
        }
    }
}

void session::stop_watchdog() {
    watching_ = false;
    handshake_deadline_ = guard_due_ = never;
    watchdog_.cancel();
}

void session::on_handshake_deadline() {
    handshake_deadline_ = never;
    if (receiver_.current() != receiver::state::awaiting_hello) return;
    const auto timeout = server_.settings().handshake_timeout;
    warn_peer(warning_kind::handshake_timeout,
              fmt::format("{}: closing connection: no hello within {} s "
                          "(limits.handshake_timeout)",
                          peer_, std::chrono::duration<double>(timeout).count()));
    cancel_read();
}

// On stop, and at the end of a stream, the last acks need not wait out the sink's sync
// interval (which may be long).
void session::expedite() {
    if (stream_) stream_->expedite();
}

void session::fail() {
    state_.fail();
    cancel_read();
    wake();
}

// The one way a session ends, whatever ended it: serve() returning, an exception out of it,
// a stop or an abort. end() closes the socket and cancels every timer, so no coroutine of the
// session is left waiting and the server's count drops only for a connection really closed.
asio::awaitable<void> session::run() {
    auto self = shared_from_this();
    try {
        co_await serve();
    } catch (...) {
        spdlog::error("{}: session ended by {}", peer_, exception_text(std::current_exception()));
    }
    end();
}

void session::end() {
    active_at_.store(0, std::memory_order_relaxed);
    server_.hello_done(std::exchange(pending_id_, 0));
    // What the sink has not made durable by now is given up at once (forward: the hop cut).
    if (stream_) stream_->abandon(std::chrono::milliseconds(0));
    state_.end();
    stop_watchdog();
    wake();
    release_sender();
    server_.counters().frames_in += receiver_.frames() - resumed_after_;
    meter_.close(server_.metrics());
    server_.metrics().drop_link_estimate(reinterpret_cast<std::uintptr_t>(this));
    // Replies that never became durable (a broken sink or socket) hold nothing any more.
    server_.metrics().held_bytes -= static_cast<std::int64_t>(replies_.drop_from(0));
    stream_io_.close();
}

// Forced end (the shutdown grace is over): the socket is closed under whatever waits on it,
// and run() ends through end() as for any failure.
void session::abort() {
    asio::post(stream_io_.get_executor(), [self = shared_from_this()] {
        self->fail();  // wakes every waiter
        self->stream_io_.close();
    });
}

asio::awaitable<void> session::serve() {
    auto self = shared_from_this();
    spdlog::debug("{}: connected", peer_);
    std::string tls_why;  // TLS first (daemon/serve/peer_stream.cpp): no byte of objwire before it
    if (auto ec = co_await stream_io_.handshake(server_.settings().handshake_timeout, tls_why)) {
        // Gone before a byte (a port probe) is no refusal worth a warning, as without TLS.
        if (ec == asio::error::eof)
            spdlog::debug("{}: refused: {}", peer_, tls_why);
        else
            warn_peer(warning_kind::refused_access, fmt::format("{}: refused: {}", peer_, tls_why));
        co_return;
    }
    handshake_deadline_ = std::chrono::steady_clock::now() + server_.settings().handshake_timeout;
    watching_ = true;
    asio::co_spawn(stream_io_.get_executor(), watchdog(), asio::detached);
    using namespace asio::experimental::awaitable_operators;
    co_await (read_side() && write_side());
    if (state_.phase() != session_phase::handed_over) {
        log_close();
        co_return;
    }
    // The writer is done: the role's service writes to the peer stream alone.
    const hello h = receiver_.peer();
    // The role reads and writes on its own buffers from here; the read block would otherwise
    // stay with the connection for its whole life (docs/PROTOCOL.md, "Memory").
    receiver_.release_buffers();
    if (h.role != peer_role::reader)
        become(connection_role::stats);
    else if (h.request == read_request::list_senders)
        become(connection_role::sender_list);
    else
        become(h.request == read_request::none ? connection_role::reader : connection_role::cursor);
    const role_service& service =
        h.role == peer_role::reader ? server_.roles().reader : server_.roles().stats;
    if (service)
        co_await service(server_, stream_io_, peer_, h);
    else
        co_await refuse_role(stream_io_, make_error_code(proto_errc::not_available),
                             "this daemon serves no such role");
}

asio::awaitable<void> session::read_side() {
    for (;;) {
        if (!co_await hold_reading()) break;
        if (state_.phase() == session_phase::draining) {
            co_await drain();
            break;
        }
        if (!state_.reading()) break;
        // Parked, the connection waits in its small first-bytes buffer, not in a read block.
        const bool parked = receiver_.parked();
        auto space = parked ? std::span<std::uint8_t>(first_bytes_) : receiver_.prepare();
        space = space.first(read_size(space.size()));
        auto [ec, n] = co_await stream_io_.async_read_some(
            asio::buffer(space.data(), space.size()),
            asio::bind_cancellation_slot(read_cancel_.slot(), use_tuple));
        read_cancel_.slot().clear();
        if (ec) {
            if (ec == asio::error::operation_aborted && state_.phase() == session_phase::draining)
                co_await drain();
            else
                on_read_error(ec);
            break;
        }
        const bool filled = n == space.size();
        if (parked && n > 0) n = unpark(n, filled);
        auto step = consume(n);
        measure_link(n, filled && !parked);
        // The socket is drained and no frame begun: the block waits in the pool, not here.
        if (!filled) receiver_.park();
        if (step == receiver::step::admit) {
            server_.hello_done(std::exchange(pending_id_, 0));
            if (!co_await admit()) break;
            if (server_.faults_) server_.faults_->after_admit();
            step = consume(0);  // frames that came with the hello
        }
        // A stalled batch is stored before the connection ends, even after a goodbye.
        if (state_.phase() == session_phase::stalled && !co_await hold_reading()) break;
        if (step != receiver::step::read) break;
    }
    stop_watchdog();   // no deadline is left to watch
    release_sender();  // no more batches: a resuming connection waits only for their syncs
    finish_reading();
    if (state_.phase() == session_phase::finishing && stream_ && !replies_.empty())
        co_await watch_for_hangup();
}

// The first bytes after a wait, read into first_bytes_, go to a read block from the pool; when
// they filled it, what else the socket holds already joins them (no wait: as drain() does), so
// a busy connection does not pay a second read per wake-up.
std::size_t session::unpark(std::size_t n, bool filled) {
    auto space = receiver_.prepare();
    std::memcpy(space.data(), first_bytes_.data(), n);
    std::error_code ec;
    const auto ready = filled ? stream_io_.available(ec) : 0;
    if (ec || ready == 0) return n;
    // The first bytes count in this turn's read, which stays within the share.
    const auto turn = read_size(n + std::min(ready, space.size() - n));
    if (turn <= n) return n;
    return n + stream_io_.read_some(asio::buffer(space.data() + n, turn - n), ec);
}

// After the goodbye nothing more comes, but the sender may leave before its last acks (its
// retry window over): then nobody takes them, and a sink waiting on a peer (a relay's hop)
// need not wait long. The writer cancels this once the replies are out.
asio::awaitable<void> session::watch_for_hangup() {
    std::uint8_t extra = 0;
    auto [ec, n] = co_await stream_io_.async_read_some(
        asio::buffer(&extra, 1), asio::bind_cancellation_slot(read_cancel_.slot(), use_tuple));
    read_cancel_.slot().clear();
    // Gone once every reply was out (the writer had not yet cancelled this): nothing was left.
    if (ec == asio::error::operation_aborted || state_.over() || replies_.empty()) co_return;
    if (!ec) {
        spdlog::warn("{}: closing connection: bytes after the goodbye", peer_);
        fail();
        co_return;
    }
    spdlog::info("{}: the sender left before its last acknowledgements", peer_);
    stream_->abandon(sink_stream::left_window);
}

void session::finish_reading() {
    active_at_.store(0, std::memory_order_relaxed);  // no longer a streaming sender
    if (state_.phase() == session_phase::handed_over || state_.over()) {
        wake();
        return;
    }
    if (state_.phase() == session_phase::draining) expedite();
    // A batch still stalled is not stored: not acknowledged, the sender sends it again.
    if (state_.phase() == session_phase::stalled) drop_stalled();
    state_.finish();
    wake();
}

asio::awaitable<bool> session::admit() {
    state_.hello_received();
    const hello& h = receiver_.peer();
    std::string why;
    std::shared_ptr<const user> who;
    const auto& address = stream_io_.peer_address();
    if (auto ec = server_.check_access(h, address, stream_io_.client_certificate(), why, who)) {
        warn_peer(warning_kind::refused_access,
                  fmt::format("{}: refused: {}", peer_, log_text(why)));
        refuse(ec, why);
        co_return false;
    }
    stream_io_.set_identity(std::make_shared<session_identity>(std::move(who)));
    if (h.role != peer_role::sender) {
        handshake_deadline_ = never;
        state_.hand_over();  // serve() runs the role once the writer is done
        co_return false;
    }
    if (auto why = relay_path_refusal(h.relay_path, server_.sink().relay_id(),
                                      server_.settings().max_hops);
        !why.empty()) {
        spdlog::warn("{}: refused: {}", peer_, log_text(why));
        server_.metrics().count_error(make_error_code(proto_errc::relay_loop), "relay_path");
        refuse(proto_errc::relay_loop, why);
        co_return false;
    }
    // Not counted as an error per connection: the sink logs the refusals once per interval.
    if (auto why = server_.sink().refuse_stream(); !why.empty()) {
        spdlog::debug("{}: refused: {}", peer_, why);
        refused_by_sink_ = true;
        refuse(proto_errc::not_available, why);
        co_return false;
    }
    co_return co_await admit_sender();
}

asio::awaitable<bool> session::admit_sender() {
    const auto resume = co_await resume_point();
    if (!resume.last_frame) {
        spdlog::warn("{}: refused: {}", peer_, log_text(resume.why));
        // sender_busy is worth retrying (the client's resume does, with backoff); a fenced
        // stream is refused for good.
        refuse(resume.refusal, resume.why);
        co_return false;
    }
    if (!state_.admitted()) co_return false;  // stopped while it waited for its id
    become(connection_role::sender);
    receiver_.set_credit(credit());
    table_grant_.emplace(server_.table_budgets(), server_.settings().table_budget);
    receiver_.limit_table(table_grant_->bytes());
    const auto last = *resume.last_frame;
    resumed_after_ = stored_sequence_ = adding_sequence_ = last;
    receiver_.admit(last, {stream_token_, stream_objects_, stream_digest_});
    meter_.resume_at(receiver_);  // frames before the resume point are not received again
    queue_ready_reply();          // the welcome
    active_at_.store(std::chrono::steady_clock::now().time_since_epoch().count(),
                     std::memory_order_relaxed);
    const auto now = std::chrono::steady_clock::now();
    guard_.start(now);
    if (const auto tick = guard_.tick(); tick.count() > 0)  // 0: no idle timeout, no read rate
        set_deadline(guard_due_, now + tick);
    co_return true;
}

void session::become(connection_role next) {
    auto& by_role = server_.metrics().connections_by_role;
    ++by_role[static_cast<std::size_t>(next)];
    --by_role[static_cast<std::size_t>(role_)];
    const bool senders_changed =
        (next == connection_role::sender) != (role_ == connection_role::sender);
    role_ = next;
    if (senders_changed) server_.senders_changed();
}

void session::notice_credit() {
    asio::post(stream_io_.get_executor(), [self = shared_from_this()] { self->announce_credit(); });
}

// Queued behind the replies before it (an ack held for its batch goes first): the sender
// learns its share in order, and no ack ever runs ahead of its objects.
void session::announce_credit() {
    const auto p = state_.phase();
    if (role_ != connection_role::sender ||
        (p != session_phase::streaming && p != session_phase::paused))
        return;
    receiver_.set_credit(credit());
    receiver_.announce_credit();
    queue_ready_reply();
}

void session::refuse(std::error_code ec, const std::string& detail) {
    receiver_.refuse(ec, detail);
    receiver_.acknowledge();
    queue_ready_reply();
}

void session::queue_ready_reply() {
    auto& out = receiver_.output();
    if (out.empty()) return;
    replies_.push_released(out.span());
    out.clear();
    wake();
}

receiver::step session::consume(std::size_t n) {
    if (n > 0) touch_active();
    receiver_.commit(n);
    server_.counters().bytes_in += n;
    bytes_in_ += n;
    unreplied_bytes_ += n;
    const auto frames_before = receiver_.frames();
    std::error_code store_error;
    const auto step = decode_and_store(store_error);
    meter_.report(receiver_, server_.metrics());
    if (store_error) {
        server_.metrics().count_error(store_error, "store_failed");
        spdlog::error("{}: cannot store objects, closing without ack: {}", peer_,
                      store_error.message());
        fail();
        return receiver::step::close;
    }
    if (receiver_.current() != receiver::state::awaiting_hello) handshake_deadline_ = never;
    roll_back_failed_frame();
    if (!reply_to_read(frames_before)) return receiver::step::close;
    // The last ack of a stream need not wait out the sink's sync interval.
    if (receiver_.current() == receiver::state::finished) expedite();
    guard_.on_read(std::chrono::steady_clock::now(), n, receiver_.buffered() > 0,
                   receiver_.frames() != frames_before);
    return step;
}

// Decodes what the receiver holds and adds each frame's objects to the open batch: object by
// object, or a fresh frame's payload as it came (the journal skips encoding its objects again:
// the receiver checked it without delivering its messages). The first failure to store stops
// the adding and is left in `store_error`.
receiver::step session::decode_and_store(std::error_code& store_error) {
    const auto deliver = [&](message&& m) {
        if (store_error || receiver_.frame_refused()) return;
        begin_frame(store_error);
        if (!store_error) store_error = store([&] { return stream_->add(m); });
        if (!store_error) ++batch_objects_;
    };
    const auto frame_done = [&](std::uint64_t messages) {
        frame_digest_ = receiver_.frame_digest();  // the stream's digest once it is stored
        // No message (only reset ops): nothing to store.
        if (store_error || receiver_.frame_refused() || messages == 0 || !receiver_.frame_checked())
            return;
        begin_frame(store_error);
        if (!store_error)
            store_error = store([&] {
                return stream_->add_payload(receiver_.frame_payload(),
                                            static_cast<std::uint32_t>(messages));
            });
        if (!store_error) {
            batch_objects_ += messages;
            ++server_.counters().frames_stored_whole;
        }
    };
    return receiver_.process(deliver, frame_done);
}

// Messages are delivered as they decode: the first objects of a frame that failed part-way
// are in the open batch, after this read's good frames; they go.
void session::roll_back_failed_frame() {
    if (stream_ && adding_sequence_ > receiver_.frames()) {
        stream_->rollback();
        batch_objects_ = marked_objects_;
    }
}

// The replies to a read (ack, then error or goodbye) wait for its batch to be durable; with
// nothing to store they go as soon as the replies before them. False: the sink failed and the
// session with it.
bool session::reply_to_read(std::uint64_t frames_before) {
    // The ack tells the sender its share as of now, if it changed since it was last told: the
    // first senders welcomed with a large share learn that later ones came.
    receiver_.set_credit(credit());
    receiver_.acknowledge();
    auto& out = receiver_.output();
    const std::uint64_t received_ns = receiver_.frames() != frames_before ? steady_now_ns() : 0;
    if (stream_ && !stream_->empty()) {
        // The sink completes batches in order: this one durable means the read's are.
        const auto reply_id = replies_.next_id();
        if (auto ec = commit_batch(receiver_.frames(), reply_id);
            ec && !stall_on(ec, receiver_.frames(), reply_id)) {
            spdlog::error("{}: sink write failed, closing without ack: {}", peer_, ec.message());
            fail();
            return false;
        }
        queue_held_reply(out.span(), received_ns);
    } else if (!out.empty()) {
        replies_.push_released(out.span(), received_ns);
        wake();
    }
    out.clear();
    return true;
}

// Before the first object (or the whole payload) of a frame is added: opens the stream,
// commits a long batch first and marks where the frame starts (it may still fail part-way).
// Once per frame: the receiver delivers a frame's messages before it counts the frame.
void session::begin_frame(std::error_code& store_error) {
    if (!stream_)
        stream_ = server_.sink().open_relayed_stream(receiver_.peer().sender_id,
                                                     receiver_.peer().relay_path);
    const auto sequence = receiver_.frames() + 1;
    if (sequence == adding_sequence_) return;
    adding_sequence_ = sequence;
    allowance_.received(receiver_.frame_payload().size(), receiver_.frame_wire_bytes());
    if (!stream_->empty() && stream_->bytes() >= batch_split_bytes) {
        store_error = commit_batch(sequence - 1, 0);
        // Out of space with the batch kept: it grows, and the read's commit stalls.
        if (out_of_space(store_error) && !stream_->empty()) store_error = {};
    }
    stream_->mark();
    marked_objects_ = batch_objects_;
    frame_memory_start_ = stream_->memory();
}

void session::measure_link(std::size_t n, bool filled) {
    if (!link_.on_read(steady_now_ns(), n, receiver_.buffered() > 0, filled)) return;
    server_.metrics().set_link_estimate(reinterpret_cast<std::uintptr_t>(this),
                                        link_.bits_per_second());
}

// Stores the open batch: the objects of the frames after the last batch up to
// last_sequence. reply_id names the reply released when it is durable (0: none).
std::string session::user_name() const {
    const auto& id = stream_io_.identity();
    return id ? id->current()->name : std::string();
}

std::error_code session::commit_batch(std::uint64_t last_sequence, std::uint64_t reply_id) {
    auto exec = stream_io_.get_executor();
    // Weak: a session whose run() has ended (after a failure) no longer cares, and must not be
    // kept alive by the sink past the server it belongs to.
    // The sender index learns of the batch even if this session is gone by then.
    auto* senders = resume_token_ ? &server_.senders() : nullptr;
    std::string id = senders ? receiver_.peer().sender_id : std::string();
    if (senders) senders->batch_committed(id);
    // Where the stream stands once this batch is durable, stored with it (the block's record).
    // Objects count as stored when their batch is durable, not when they were decoded.
    const std::uint64_t objects = stream_objects_ + batch_objects_;
    const std::uint64_t digest = frame_digest_;
    stream_->set_record({stream_fence_, objects, digest});
    const auto batch_bytes = stream_->bytes();
    auto on_durable = [weak = weak_from_this(), reply_id, exec, senders, id, last_sequence, objects,
                       digest, batch = batch_objects_, batch_bytes,
                       sender = receiver_.peer().sender_id, per_sender = &server_.metrics().senders,
                       user = user_name(), per_user = &server_.metrics().users_in,
                       stored = &server_.counters().objects_in](std::error_code ec) {
        if (senders) senders->batch_done(id, last_sequence, !ec, objects, digest);
        if (!ec) {
            *stored += batch;
            const double now = unix_seconds_now();
            per_sender->stored(sender, batch, batch_bytes, now);
            per_user->stored(user, batch, batch_bytes, now);
        }
        asio::post(exec, [weak, reply_id, ec, batch] {
            if (auto self = weak.lock()) self->on_durable(reply_id, ec, batch);
        });
    };
    const auto batch_memory = stream_->memory();
    auto ec = stream_->commit(stored_sequence_ + 1, last_sequence, std::move(on_durable));
    if (!ec) {
        stored_sequence_ = last_sequence;
        stream_objects_ = objects;
        stream_digest_ = digest;
        batch_objects_ = marked_objects_ = 0;
    }
    if (ec && senders) senders->batch_done(id, 0, false);  // nothing was stored
    if (!ec) {
        server_.metrics().sink_bytes += batch_bytes;
        unreplied_memory_ += batch_memory;
    }
    return ec;
}

void session::on_durable(std::uint64_t id, std::error_code ec, std::uint64_t objects) {
    if (ec) {
        if (refusal_passed_) return;  // one error frame for the stream
        if (state_.over()) return fail();
        const auto why = stream_ ? stream_->last_failure() : sink_stream::failure{};
        if (why.code.category() == proto_category() && !why.text.empty()) return pass_refusal(why);
        spdlog::error("{}: stored objects did not become durable, closing without ack: {}", peer_,
                      ec.message());
        fail();
        return;
    }
    stored_objects_ += objects;
    release_held(id);
    wake();
}

// The sink's peer (a relay's next hop) refused the stream for a reason that holds here too (a
// relay loop, a limit): the sender gets that error frame instead of a silent close, so it
// does not retry what would be refused again. Nothing more is read or acknowledged.
void session::pass_refusal(const sink_stream::failure& why) {
    refusal_passed_ = true;
    spdlog::warn("{}: closing connection: the next hop refused the stream: {}", peer_,
                 log_text(why.text));
    server_.metrics().count_error(why.code, "hop_refusal");
    server_.metrics().held_bytes -= static_cast<std::int64_t>(replies_.drop_from(0));
    const auto frame = error_frame(why.code, why.text);
    replies_.push_released(frame.span());
    state_.finish();
    cancel_read();
    wake();
}

// The single writer of the socket after the handshake: sends released replies in order, until
// no reply will come any more and none is left to send.
asio::awaitable<void> session::write_side() {
    std::vector<std::uint64_t> acked_reads_ns;  // received_ns of the acks in this write
    for (;;) {
        writing_.clear();
        acked_reads_ns.clear();
        replies_.take_released(writing_, acked_reads_ns);
        if (writing_.empty()) {
            if (state_.over() || (state_.replies_closed() && replies_.empty())) {
                cancel_read();  // a watch for the sender's hang-up
                co_return;
            }
            co_await wait_for_wake();
            continue;
        }
        auto [ec, n] = co_await asio::async_write(
            stream_io_, asio::buffer(writing_.data(), writing_.size()), use_tuple);
        if (ec) {
            if (state_.phase() == session_phase::finishing || state_.over())
                spdlog::debug("{}: replies not sent, the connection is over: {}", peer_,
                              ec.message());
            else
                spdlog::warn("{}: write failed: {}", peer_, ec.message());
            fail();
            co_return;
        }
        auto& m = server_.metrics();
        m.bytes_out += n;
        const auto now = steady_now_ns();
        for (auto t : acked_reads_ns)
            m.ack_latency.observe(now - t);
    }
}

// On stop: whatever the kernel already holds for us counts as received - take it in, store
// and acknowledge it, without waiting for more.
asio::awaitable<void> session::drain() {
    for (;;) {
        std::error_code ec;
        if (stream_io_.available(ec) == 0 || ec) co_return;
        auto space = receiver_.prepare();
        std::size_t n = stream_io_.read_some(asio::buffer(space.data(), space.size()), ec);
        if (ec || consume(n) != receiver::step::read) co_return;
    }
}

void session::on_read_error(const std::error_code& ec) {
    if (ec == asio::error::operation_aborted) return;  // stop(), the handshake deadline, a failure
    if (ec == asio::error::eof) {
        if (receiver_.buffered() > 0)
            spdlog::warn(
                "{}: connection closed mid-frame ({} bytes of an incomplete frame dropped)", peer_,
                receiver_.buffered());
        else if (receiver_.current() == receiver::state::streaming)
            spdlog::info("{}: connection closed without goodbye", peer_);
        // Nobody will take the acks: a sink waiting on a peer need not wait long for them.
        if (stream_ && receiver_.current() == receiver::state::streaming)
            stream_->abandon(sink_stream::left_window);
        return;
    }
    spdlog::warn("{}: read failed: {}", peer_, ec.message());
    if (stream_) stream_->abandon(sink_stream::left_window);
}

// What the stream did, for an operator reading the log: whose, how much, how long.
std::string session::stream_summary() const {
    const auto& h = receiver_.peer();
    const std::string who = h.sender_id.empty() ? std::string("an anonymous sender")
                                                : "sender id '" + log_text(h.sender_id) + "'";
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - connected_at_;
    return counted(stored_objects_, "object") + " stored from " +
           counted(receiver_.frames() - resumed_after_, "frame") + " of " + who + " ('" +
           log_text(h.client_name) + "'), " + counted(bytes_in_, "byte") + " received in " +
           fmt::format("{:.3f}", took.count()) + " s";
}

void session::log_close() {
    switch (receiver_.current()) {
        case receiver::state::failed:
            // The sink logs its refusals of new streams (daemon/sinks/forward_sink.hpp) once per
            // interval with a count, not once per connection.
            if (refused_by_sink_) {
                spdlog::debug("{}: closing connection: {}", peer_, receiver_.error_detail());
                break;
            }
            ++server_.counters().protocol_errors;
            server_.metrics().count_error(receiver_.error());
            warn_peer(
                receiver_.hello_received() ? warning_kind::bad_frame : warning_kind::bad_hello,
                fmt::format("{}: closing connection: {}", peer_, receiver_.error_detail()));
            break;
        case receiver::state::finished:
            spdlog::info("{}: done: {}", peer_, stream_summary());
            break;
        default:
            // Closed before its hello (a timeout, a shed): the limited warning said so, and a
            // flood of them must not flood the log.
            if (!receiver_.hello_received())
                spdlog::debug("{}: closed after {}", peer_, stream_summary());
            else
                spdlog::info("{}: closed after {}", peer_, stream_summary());
    }
}

}  // namespace objwire::daemon
