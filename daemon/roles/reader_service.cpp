// The reader role (docs/PROTOCOL.md, "Reading back"): a welcome with the journal's offsets and
// where the stream starts (read_from, the durable end, the last N objects, or a named cursor's
// position), then every stored block from there on as one journal_block frame each - the bytes
// exactly as stored - in offset order, optionally only one sender's; at the end of what was
// durable when the reader connected a goodbye, or with hello.follow, new blocks as they become
// durable until the peer goes away or the daemon stops. A cursor reader's acks move its cursor
// (daemon/roles/cursor_service.hpp) coalesced: the newest wins, written at most once per
// cursor_write_interval (daemon/store/cursor_acks.hpp) and made durable by the journal's next
// sync; what is pending is stored durably when the peer's side ends, and the name let go
// then, before its goodbye is answered.
//
// Memory per reader is bounded (docs/PROTOCOL.md 1.2, "Memory"): while a batch of frames
// waits for the peer (TCP back-pressure) the reader holds that batch - 256 KiB of frames, or
// one larger block and those before it - and nothing else: the cursor gives back the copy of
// a large block once it is framed, and its read-ahead once the batch has waited 50 ms. A
// follower waiting at the live end holds neither. A peer that takes no bytes for
// limits.idle_timeout while a batch waits is closed (daemon/roles/slow_consumer.hpp).
//
// A follower caught up with the durable end takes a seat on the shared run
// (daemon/roles/live_feed.hpp): each durable block read and checked once for all followers,
// and sent to this one from the shared bytes behind a frame header of its own (a gathered
// write; on TLS copied into the batch). Fallen further behind than the run holds, it reads on
// its own cursor again from where it stands, and takes a seat again once caught up.
#include <spdlog/spdlog.h>

#include <array>
#include <asio/experimental/as_tuple.hpp>
#include <atomic>
#include <deque>
#include <memory>
#include <optional>
#include <utility>

#include "daemon/roles/cursor_service.hpp"
#include "daemon/roles/live_feed.hpp"
#include "daemon/roles/nats_reader.hpp"
#include "daemon/roles/reader_support.hpp"
#include "daemon/roles/sender_list_service.hpp"
#include "daemon/roles/standard_roles.hpp"
#include "daemon/serve/log_text.hpp"
#include "daemon/serve/server.hpp"
#include "daemon/store/cursor_acks.hpp"
#include "daemon/store/cursor_store.hpp"
#include "daemon/store/journal.hpp"
#include "daemon/store/journal_cursor.hpp"
#include "daemon/store/journal_starts.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"

namespace objwire::daemon {
namespace {

using namespace reader_support;

// Cursor steps (blocks, gaps) in one batch before the strand's other work runs.
constexpr std::size_t max_gather_steps = 4096;
// A gap frame: its header and two varint offsets.
constexpr std::size_t gap_frame_room = frame_header_size + 32;
// A cursor is written at most this often while its reader acks; acks in between coalesce.
constexpr auto cursor_write_interval = std::chrono::milliseconds(100);

welcome reader_welcome(server& srv, journal& j, std::uint64_t end) {
    welcome w;
    w.server_name = "objwired";
    w.sink = j.describe();
    w.limits.max_frame_bytes = srv.settings().max_frame_bytes;
    const auto segments = j.segments();
    w.journal_first_offset = segments.empty() ? 0 : segments.front().first_offset;
    w.journal_end_offset = end;
    return w;
}

// One running search for a reader's start: counted in objwire_reader_starts_running, its slot
// of limits.max_reader_starts(_per_address) given back when it ends.
class start_search {
  public:
    start_search(server& srv, std::string address);
    ~start_search();
    start_search(const start_search&) = delete;
    start_search& operator=(const start_search&) = delete;

  private:
    server& srv_;
    std::string address_;
};

class reader_stream : reader_base {
  public:
    // `cursors`: the store holding hello.read_cursor, claimed for this reader (null: none);
    // the reader releases the claim.
    reader_stream(server& srv, journal& j, peer_stream& stream, const std::string& peer,
                  const hello& h, cursor_store* cursors)
        : reader_base(srv, stream, peer, h), journal_(j), cursors_(cursors) {}
    ~reader_stream() { release_cursor(); }
    reader_stream(const reader_stream&) = delete;
    reader_stream& operator=(const reader_stream&) = delete;

    asio::awaitable<void> run();

  private:
    enum class outcome { more, caught_up, failed };
    // Gathers the next frames into the core's output (blocks below limit_, of the wanted
    // sender).
    outcome gather();
    // A follower caught up on its own cursor takes a seat on the shared run at the live end
    // (daemon/roles/live_feed.hpp) when the run can serve it from there.
    void try_share();
    // On the shared run: the next blocks' frame headers, and the blocks, into shared_batch_.
    outcome gather_shared();
    // A follower the shared run no longer serves reads on its own from where it stands.
    void leave_shared();
    // A shared block's frame: its header and the shared bytes on a plain connection (a
    // gathered write), copied into the core's output on TLS (whose records are made from one
    // buffer).
    void add_shared_frame(const live_block& b, std::span<std::uint8_t, frame_header_size> header);
    // The offset of the next block this reader serves.
    std::uint64_t next_offset() const { return seat_ ? seat_->position() : cursor_->next_offset(); }
    asio::awaitable<void> wait_for_more();
    std::uint64_t subscribe();
    // Where the stream starts, into `w`; a new cursor is stored there. False: refused (the
    // reason sent).
    asio::awaitable<bool> place_start(welcome& w);
    // Serves blocks until the stream ends; true when a write failed (the peer gone, or too
    // slow).
    asio::awaitable<bool> serve_blocks(reader_position_mark& position);
    // Every durable block below limit_ is served: whether a follower goes on (limit_ moved).
    asio::awaitable<bool> go_on_after_catching_up();
    // After the stream: a cursor reader's goodbye, and the log line.
    asio::awaitable<void> finish(bool write_failed);
    // Where the stream starts; nullopt (failure_ set, or peer_left_) when that cannot be known.
    asio::awaitable<std::optional<std::uint64_t>> resolve_start(std::uint64_t first);
    // A start by time or by the last N objects of a sender: through the journal's start index
    // (daemon/store/journal_starts.hpp), holding a search slot meanwhile.
    asio::awaitable<std::optional<std::uint64_t>> search_start(std::uint64_t first);
    // A slot of limits.max_reader_starts(_per_address); null when refused (failure_ set) or
    // when the peer has already gone (peer_left_).
    std::unique_ptr<start_search> take_search_slot();
    // The offset of the last hello.read_last objects the reader may see below limit_ (a reader
    // narrowed by its permissions: a scan from `first`).
    asio::awaitable<std::optional<std::uint64_t>> start_of_wanted_last(std::uint64_t first);
    // Between a scan's rounds: false when the peer went or the daemon is stopping.
    asio::awaitable<bool> search_goes_on();
    // A non-following cursor reader, after the goodbye: its last ack and goodbye.
    asio::awaitable<void> wait_for_peer_end();
    // A cursor reader's ack: pending, written when due; false ends the connection.
    bool take_ack(std::uint64_t next_offset);
    // Writes the pending position if its turn has come (`all`: whatever the interval says).
    bool store_pending_ack(bool all);
    // The peer's side has ended: what it acked is stored, and the name let go.
    void end_of_acks();
    // The cursor moves to next_offset: durably before it returns when `now`, else with the
    // journal's next sync. False ends the connection.
    bool store_cursor(std::uint64_t next_offset, bool now);
    void release_cursor() {
        if (cursors_ && !std::exchange(cursor_released_, true))
            cursors_->release(hello_.read_cursor);
    }

    journal& journal_;
    cursor_store* cursors_;
    bool cursor_released_ = false;
    cursor_acks acks_{cursor_write_interval};
    std::optional<journal_cursor> cursor_;
    std::uint64_t limit_ = 0;                 // serve blocks below this offset (durable)
    std::optional<block_place> start_place_;  // where the search found the start's block
    bool peer_left_ = false;                  // the peer went before its start was found
    // On the shared run: the seat, and the batch being written - the blocks (held alive until
    // written), the frame headers, and what goes out.
    std::unique_ptr<live_feed::seat> seat_;
    std::vector<live_block_cache::block_ptr> shared_blocks_;
    std::vector<std::array<std::uint8_t, frame_header_size>> shared_headers_;
    write_list shared_out_;
};

asio::awaitable<std::optional<std::uint64_t>> reader_stream::resolve_start(std::uint64_t first) {
    if (cursors_) {
        std::error_code ec;
        const auto at = cursors_->get(hello_.read_cursor, ec);
        if (ec) {
            failure_code_ = proto_errc::not_available;
            failure_ = "cannot read cursor '" + hello_.read_cursor + "' in " +
                       cursors_->dir().string() + ": " + ec.message();
            co_return std::nullopt;
        }
        if (at) co_return *at;
    }
    if (hello_.read_at_end) co_return limit_;
    // A reader that sees only some senders counts only their objects (a search).
    if (hello_.read_last != 0 && hello_.read_sender.empty() && core_.unrestricted())
        co_return std::max(first, limit_ - std::min(limit_, hello_.read_last));
    // A follower of an id that has stored nothing yet starts at the end, without a search.
    if (hello_.read_last != 0 && !hello_.read_sender.empty() &&
        srv_.senders().last_durable(hello_.read_sender) == 0)
        co_return limit_;
    if (hello_.read_last == 0 && hello_.read_since_ms == 0) co_return hello_.read_from;
    co_return co_await search_start(first);
}

start_search::start_search(server& srv, std::string address)
    : srv_(srv), address_(std::move(address)) {
    ++srv_.metrics().reader_starts_running;
}

start_search::~start_search() {
    srv_.reader_starts().give_back(address_);
    --srv_.metrics().reader_starts_running;
}

std::unique_ptr<start_search> reader_stream::take_search_slot() {
    // A hello sent and closed at once costs no search.
    if (peer_closed(stream_)) {
        peer_left_ = true;
        return nullptr;
    }
    auto address = stream_.peer_address();
    const auto& s = srv_.settings();
    auto why = srv_.reader_starts().try_take(address, s.max_reader_starts_per_address,
                                             s.max_reader_starts);
    if (why.empty()) return std::make_unique<start_search>(srv_, std::move(address));
    ++srv_.metrics().reader_starts_refused;
    failure_code_ = proto_errc::too_many_connections;
    failure_ = std::move(why);
    return nullptr;
}

asio::awaitable<std::optional<std::uint64_t>> reader_stream::search_start(std::uint64_t first) {
    const auto slot = take_search_slot();
    if (!slot) co_return std::nullopt;
    if (hello_.read_last != 0 && hello_.read_sender.empty())
        co_return co_await start_of_wanted_last(first);
    journal_index_scan stats;
    found_start found;
    if (hello_.read_last != 0) {
        if (!core_.wanted(hello_.read_sender)) co_return limit_;
        found =
            start_of_senders_last(journal_, hello_.read_sender, hello_.read_last, limit_, stats);
    } else {
        found = start_of_time(journal_, hello_.read_since_ms, limit_, stats);
    }
    if (found.error) {
        failure_code_ = proto_errc::not_available;
        failure_ = "the journal cannot be read: " + found.detail;
        co_return std::nullopt;
    }
    start_place_ = found.place;
    co_return found.offset;
}

asio::awaitable<bool> reader_stream::search_goes_on() {
    if (peer_closed(stream_)) {
        peer_left_ = true;
        co_return false;
    }
    if (srv_.stopping()) {
        failure_code_ = proto_errc::not_available;
        failure_ = "the daemon is stopping";
        co_return false;
    }
    // Let the strand's other work run.
    co_await asio::post(stream_.get_executor(), asio::use_awaitable);
    co_return true;
}

asio::awaitable<std::optional<std::uint64_t>> reader_stream::start_of_wanted_last(
    std::uint64_t first) {
    // One pass over the journal keeping the newest blocks the reader may see that hold the
    // last N: the start index counts per sender id, not per permission.
    journal_cursor scan(journal_.options().dir, first, start_at_offset(journal_, first).place);
    std::deque<std::pair<std::uint64_t, std::uint64_t>> newest;  // first offset, objects
    std::uint64_t held = 0;
    std::size_t scanned = 0;
    std::size_t steps = 0;
    journal_block_view view;
    std::span<const std::uint8_t> bytes;
    for (;;) {
        const auto st = scan.next(limit_, view, bytes);
        if (st == journal_cursor::status::caught_up) break;
        if (st == journal_cursor::status::error) {
            failure_code_ = proto_errc::not_available;
            failure_ = "the journal cannot be read: " + scan.error_detail();
            co_return std::nullopt;
        }
        scanned += st == journal_cursor::status::gap ? 1 : bytes.size();
        if (scanned > 16 * write_batch_bytes || ++steps > max_gather_steps) {
            scanned = 0;
            steps = 0;
            if (!co_await search_goes_on()) co_return std::nullopt;
        }
        if (st == journal_cursor::status::gap) continue;  // reported when the stream reaches it
        if (!core_.wanted(view.sender_id)) continue;
        newest.emplace_back(view.header.first_offset, view.header.message_count);
        held += view.header.message_count;
        while (newest.size() > 1 && held - newest.front().second >= hello_.read_last) {
            held -= newest.front().second;
            newest.pop_front();
        }
    }
    if (newest.empty()) co_return limit_;
    co_return newest.front().first + (held > hello_.read_last ? held - hello_.read_last : 0);
}

bool reader_stream::take_ack(std::uint64_t next_offset) {
    ++srv_.metrics().cursor_acks;
    acks_.acked(next_offset);
    return store_pending_ack(false);
}

bool reader_stream::store_pending_ack(bool all) {
    if (cursor_released_) return true;
    const auto at = all ? acks_.take() : acks_.take_due(cursor_acks::clock::now());
    if (at) return store_cursor(*at, all);
    if (!all) return true;
    // Nothing pending: what was staged for the journal's next sync is stored now.
    if (auto e = cursors_->persist(hello_.read_cursor)) {
        spdlog::error("{}: cannot store cursor '{}': {}", peer_, log_text(hello_.read_cursor),
                      e.message());
        return false;
    }
    return true;
}

void reader_stream::end_of_acks() {
    store_pending_ack(true);
    release_cursor();
}

bool reader_stream::store_cursor(std::uint64_t next_offset, bool now) {
    // In the stream an ack rides on the journal's next sync; the reader's end is stored at once.
    std::error_code e;
    if (!now) cursors_->stage(hello_.read_cursor, next_offset);
    if (now || !journal_.rider_written()) e = cursors_->save(hello_.read_cursor, next_offset);
    if (e) {
        spdlog::error("{}: cannot store cursor '{}' at {}: {}", peer_, log_text(hello_.read_cursor),
                      next_offset, e.message());
        return false;
    }
    acks_.stored(next_offset, cursor_acks::clock::now());
    ++srv_.metrics().cursor_writes;
    return true;
}

asio::awaitable<void> reader_stream::wait_for_peer_end() {
    // Bounded, like a reader's idle timeout: a peer that never answers is let go.
    for (int polls = 0; !state_->peer_done && !srv_.stopping() && polls < 150; ++polls) {
        if (!store_pending_ack(false)) break;
        state_->wake.expires_after(follow_poll);
        co_await state_->wake.async_wait(use_tuple);
    }
}

std::uint64_t reader_stream::subscribe() {
    auto ex = stream_.get_executor();
    // Wakes only once per wait however many blocks became durable meanwhile.
    return journal_.subscribe([wake = waker(state_, ex)](std::uint64_t) { wake(); });
}

reader_stream::outcome reader_stream::gather() {
    journal_block_view view;
    std::span<const std::uint8_t> bytes;
    // Scanning past other senders' blocks counts too, and so does every step (a gap, a damaged
    // segment passed over), so one call stays bounded and the strand's other work runs.
    std::size_t scanned = 0;
    for (std::size_t steps = 0; core_.output().size() < write_batch_bytes &&
                                scanned < 16 * write_batch_bytes && steps < max_gather_steps;
         ++steps) {
        switch (cursor_->next(limit_, view, bytes)) {
            case journal_cursor::status::caught_up:
                return outcome::caught_up;
            case journal_cursor::status::gap: {
                // The reader learns what is lost and reads on after it.
                const auto g = cursor_->gap();
                if (cursor_->gap_by_retention()) {
                    srv_.metrics().retention_offsets_unread += g.end - g.first;
                    spdlog::warn("{}: reader: {}", peer_, cursor_->gap_detail());
                } else {
                    journal_.note_gap(g, cursor_->gap_detail());
                }
                make_room(gap_frame_room);
                core_.add_gap({g.first, g.end});
                ++srv_.metrics().journal_gaps_served;
                continue;
            }
            case journal_cursor::status::error:
                failure_code_ = proto_errc::not_available;
                failure_ = "the journal cannot be read: " + cursor_->error_detail();
                return outcome::failed;
            case journal_cursor::status::block:
                break;
        }
        scanned += bytes.size();
        make_room(bytes.size() + frame_header_size);
        if (core_.add_block(view, bytes) == read_server::block_verdict::too_large) {
            failure_code_ = proto_errc::frame_too_large;
            failure_ = core_.failure();
            return outcome::failed;
        }
    }
    return outcome::more;
}

void reader_stream::try_share() {
    if (cursor_->next_offset() != limit_) return;
    seat_ = live_feed::for_data_dir(journal_.options().dir)
                .join(limit_, srv_.metrics().readers_shared_bytes,
                      srv_.settings().readers_shared_bytes);
    if (!seat_) return;
    gave_back(cursor_->release_buffer(journal_cursor::keep::nothing));
    note_held(cursor_->buffer_capacity());
}

void reader_stream::leave_shared() {
    const std::uint64_t at = seat_->position();
    seat_.reset();
    cursor_.emplace(journal_.options().dir, at);
}

reader_stream::outcome reader_stream::gather_shared() {
    shared_blocks_.clear();
    shared_out_.clear();
    const auto got = seat_->take(limit_, write_batch_bytes, shared_blocks_);
    if (got == live_feed::take_result::behind) {
        ++srv_.metrics().readers_shared_behind;
        leave_shared();
        return outcome::more;
    }
    shared_headers_.resize(shared_blocks_.size());  // never reallocated while listed
    for (std::size_t i = 0; i < shared_blocks_.size(); ++i) {
        const auto& b = *shared_blocks_[i];
        const auto v = core_.add_block_header(b.view, b.sum, shared_headers_[i]);
        if (v == read_server::block_verdict::too_large) {
            failure_code_ = proto_errc::frame_too_large;
            failure_ = core_.failure();
            return outcome::failed;
        }
        if (v != read_server::block_verdict::queued) continue;
        add_shared_frame(b, shared_headers_[i]);
        ++srv_.metrics().readers_shared_blocks;
    }
    return got == live_feed::take_result::caught_up ? outcome::caught_up : outcome::more;
}

void reader_stream::add_shared_frame(const live_block& b,
                                     std::span<std::uint8_t, frame_header_size> header) {
    if (!stream_.secure()) {
        shared_out_.add(header);
        shared_out_.add(b.bytes.span());
        return;
    }
    make_room(frame_header_size + b.bytes.size());
    core_.output().append(header);
    core_.output().append(b.bytes.span());
}

asio::awaitable<void> reader_stream::wait_for_more() {
    // An ack that came while the last was being written waits no longer than a poll.
    if (cursors_) store_pending_ack(false);
    release_batch();
    gave_back(cursor_->release_buffer(journal_cursor::keep::nothing));
    note_held(cursor_->buffer_capacity());
    state_->wake.expires_after(follow_poll);
    co_await state_->wake.async_wait(use_tuple);
}

asio::awaitable<void> reader_stream::run() {
    limit_ = journal_.durable_offset();
    auto w = reader_welcome(srv_, journal_, limit_);
    if (!co_await place_start(w)) co_return;
    const auto place = start_place_ && start_place_->first_offset <= w.read_start
                           ? start_place_
                           : start_at_offset(journal_, w.read_start).place;
    cursor_.emplace(journal_.options().dir, w.read_start, place);
    reader_position_mark position(srv_.metrics().readers_at, w.read_start, peer_);
    core_.welcome(w);
    if (co_await flush() != write_result::written) co_return;
    spdlog::info(
        "{}: reader from offset {}{}{}{} (stored up to {})", peer_, w.read_start,
        hello_.follow ? ", following" : "",
        hello_.read_sender.empty() ? "" : ", sender '" + log_text(hello_.read_sender) + "'",
        cursors_ ? ", cursor '" + log_text(hello_.read_cursor) + "'" : "", limit_);
    const std::uint64_t listener = hello_.follow ? subscribe() : 0;
    peer_acks acks;
    if (cursors_) {
        acks.durable_end = [this] { return journal_.durable_offset(); };
        acks.on_ack = [this](std::uint64_t o) { return take_ack(o); };
        acks.on_end = [this] { end_of_acks(); };
    }
    asio::co_spawn(stream_.get_executor(), watch_peer(stream_, state_, core_, peer_, acks),
                   asio::detached);
    const bool write_failed = co_await serve_blocks(position);
    if (listener) journal_.unsubscribe(listener);
    co_await stop_watching(stream_, *state_);
    co_await finish(write_failed);
}

asio::awaitable<bool> reader_stream::place_start(welcome& w) {
    const auto start = co_await resolve_start(w.journal_first_offset);
    if (!start && peer_left_) {
        spdlog::debug("{}: reader gone before its start was found", peer_);
        reset_gone_peer(stream_);
        co_return false;
    }
    if (!start) {
        co_await end_with(failure_code_, failure_);
        co_return false;
    }
    w.read_start = std::max(*start, w.journal_first_offset);
    if (!cursors_) co_return true;
    acks_ = cursor_acks(cursor_write_interval, w.read_start);
    // A new cursor exists from now on, so a reader that crashes before its first ack starts
    // here again (at least once) rather than wherever --from then points.
    std::error_code ec;
    const bool made_now = !cursors_->get(hello_.read_cursor, ec) && !ec;
    if (made_now && w.read_start > limit_) {
        // As for `cursor set`: a cursor never stands past what is stored, where no ack could
        // reach it and the objects before it would be skipped unseen. None is made.
        co_await end_with(proto_errc::past_end, "offset " + std::to_string(w.read_start) +
                                                    " (the next offset is " +
                                                    std::to_string(limit_) + "): cursor '" +
                                                    hello_.read_cursor + "' not made");
        co_return false;
    }
    if (made_now) ec = cursors_->save(hello_.read_cursor, w.read_start);
    if (!ec) co_return true;
    co_await end_with(proto_errc::not_available, "cannot store cursor '" + hello_.read_cursor +
                                                     "' in " + cursors_->dir().string() + ": " +
                                                     ec.message());
    co_return false;
}

asio::awaitable<bool> reader_stream::serve_blocks(reader_position_mark& position) {
    for (;;) {
        // The peer said goodbye or went: nothing more is served, its goodbye is answered now.
        if (state_->peer_done) co_return false;
        if (cursors_ && !store_pending_ack(false)) co_return true;
        const auto got = seat_ ? gather_shared() : gather();
        position.move(next_offset());
        const bool wrote = !core_.output().empty() || !shared_out_.empty();
        srv_.metrics().objects_out += objects_since_last();
        // The batch holds a copy of every block in it: the cursor's need not while it waits.
        gave_back(cursor_->release_buffer(journal_cursor::keep::read_ahead));
        note_held(cursor_->buffer_capacity());
        // Stalled on its peer, the reader holds only the batch: the read-ahead is read again
        // once the peer has taken it.
        const auto drop_read_ahead = [this] {
            gave_back(cursor_->release_buffer(journal_cursor::keep::nothing));
            note_held(cursor_->buffer_capacity());
        };
        if (co_await flush(drop_read_ahead) != write_result::written) co_return true;
        // The shared blocks go out from the bytes every follower shares, then are let go.
        if (co_await flush(shared_out_) != write_result::written) co_return true;
        shared_blocks_.clear();
        if (got == outcome::failed) {
            co_await end_with(failure_code_, failure_);
            co_return false;
        }
        if (got == outcome::caught_up) {
            if (hello_.follow && !seat_) try_share();
            if (!co_await go_on_after_catching_up()) co_return false;
            continue;
        }
        if (srv_.stopping()) {
            co_await end_stopping();
            co_return false;
        }
        if (co_await end_if_revoked()) co_return false;
        // Only other senders' blocks this round: let the strand's other work run.
        if (!wrote) co_await asio::post(stream_.get_executor(), asio::use_awaitable);
    }
}

asio::awaitable<bool> reader_stream::go_on_after_catching_up() {
    if (!hello_.follow) {
        co_await end_stream();
        if (cursors_) co_await wait_for_peer_end();
        co_return false;
    }
    if (co_await should_end()) co_return false;
    const auto durable = journal_.durable_offset();
    if (durable > limit_) {
        limit_ = durable;
        co_return true;
    }
    co_await wait_for_more();
    if (state_->peer_done) co_return false;
    limit_ = journal_.durable_offset();
    co_return true;
}

asio::awaitable<void> reader_stream::finish(bool write_failed) {
    // The cursor is stored: the reader may exit, and a reader that starts as soon as it has
    // may take the name, so the claim ends before the goodbye goes out.
    if (cursors_ && state_->peer_goodbye) {
        release_cursor();
        core_.confirm_goodbye();
        co_await flush();
    }
    if (cursor_->skipped_by_retention())
        spdlog::warn(
            "{}: reader skipped {} objects deleted by retention before it read them "
            "(served to it as gaps)",
            peer_, cursor_->skipped_by_retention());
    spdlog::info("{}: reader done: {} blocks ({} bytes) served up to offset {}{}", peer_,
                 core_.blocks(), core_.block_bytes(), next_offset(),
                 slow_closed_   ? " (closed: a slow consumer)"
                 : write_failed ? " (the peer went away)"
                                : "");
}

// Refuses what this journal cannot serve: an unknown sender id to a reader that would end at
// once (a typo would print nothing and succeed; a follower waits for the sender's first
// objects), a bad or busy cursor name. True when refused.
asio::awaitable<bool> refuse_request(server& srv, cursor_store& cursors, peer_stream& stream,
                                     const std::string& peer, const hello& h) {
    std::error_code code;
    std::string why;
    if (!h.follow && !h.read_sender.empty() && srv.senders().last_durable(h.read_sender) == 0) {
        code = proto_errc::not_found;
        why = "no sender with id '" + h.read_sender + "' has stored objects in this daemon";
    } else if (!h.read_cursor.empty() && !valid_cursor_name(h.read_cursor)) {
        code = proto_errc::bad_handshake;
        why = "'" + h.read_cursor +
              "' is not a cursor name (1 to 128 of A-Z a-z 0-9 . _ -, not starting with .)";
    } else if (!h.read_cursor.empty() && !cursors.claim(h.read_cursor)) {
        code = proto_errc::sender_busy;
        why = "cursor '" + h.read_cursor + "' is in use by another reader";
    } else {
        co_return false;
    }
    spdlog::warn("{}: reader refused: {}", peer, log_text(why));
    co_await refuse_role(stream, code, why);
    co_return true;
}

}  // namespace

asio::awaitable<void> serve_reader(server& srv, peer_stream& stream, const std::string& peer,
                                   const hello& h) {
    const auto slot = mark_slot(srv, stream, slot_role::reader);
    const auto& readable = srv.readable();
    if (readable.stream) {
        if (const auto& id = stream.identity(); id && !id->reads_everything()) {
            co_await refuse_role(stream, proto_errc::not_available,
                                 "read permissions narrower than read = [\"*\"] need "
                                 "sink.kind = \"journal\"");
            co_return;
        }
        if (h.read_at_end || h.read_last || h.read_since_ms || !h.read_cursor.empty() ||
            h.request != read_request::none) {
            co_await refuse_role(stream, proto_errc::not_available,
                                 "reading from the end, the last N objects, from a time, named "
                                 "cursors and the sender list need sink.kind = \"journal\"");
            co_return;
        }
        co_await serve_stream_reader(srv, *readable.stream, stream, peer, h);
        co_return;
    }
    if (!readable.journal) {
        spdlog::warn("{}: reader refused: the sink is {}", peer, srv.sink().describe());
        co_await refuse_role(stream, proto_errc::not_available,
                             "this daemon stores objects in " + srv.sink().describe() +
                                 ", which cannot be read back; reading needs sink.kind = "
                                 "\"journal\" or \"nats\"");
        co_return;
    }
    auto& j = *readable.journal;
    auto& cursors = cursor_store::for_data_dir(j.options().dir);
    if (h.request == read_request::list_senders) {
        co_await serve_sender_list(j, stream, peer, srv.settings().idle_timeout);
        co_return;
    }
    if (h.request != read_request::none) {
        co_await serve_cursor_command(cursors, j.durable_offset(), stream, peer, h);
        co_return;
    }
    if (co_await refuse_request(srv, cursors, stream, peer, h)) co_return;
    reader_stream r(srv, j, stream, peer, h, h.read_cursor.empty() ? nullptr : &cursors);
    co_await r.run();
}

}  // namespace objwire::daemon
