#include "daemon/store/journal.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "daemon/store/journal_index.hpp"
#include "proto/journal_block.hpp"

namespace objwire::daemon {
namespace {

std::error_code last_errno() {
    return {errno, std::generic_category()};
}

constexpr auto retention_check_every = std::chrono::minutes(1);
constexpr auto checkpoint_sync_every = std::chrono::seconds(1);

}  // namespace

std::optional<fsync_policy> parse_fsync_policy(std::string_view text) {
    if (text == "always") return fsync_policy::always;
    if (text == "interval") return fsync_policy::interval;
    if (text == "never") return fsync_policy::never;
    return std::nullopt;
}

std::string_view to_string(fsync_policy p) {
    switch (p) {
        case fsync_policy::always:
            return "always";
        case fsync_policy::interval:
            return "interval";
        case fsync_policy::never:
            return "never";
    }
    return "?";
}

journal::journal(journal_options options)
    : options_(std::move(options)), sync_schedule_(options_.fsync_interval) {}

journal::~journal() {
    close();
}

std::unique_ptr<journal> journal::open(journal_options options, std::error_code& ec) {
    if (!options.sync) options.sync = [](int fd) { return ::fdatasync(fd); };
    if (!options.clock) options.clock = [] { return std::chrono::system_clock::now(); };
    std::unique_ptr<journal> j(new journal(std::move(options)));
    std::filesystem::create_directories(j->options_.dir, ec);
    if (ec) return nullptr;
    std::string why;
    j->lock_ = data_dir_lock::acquire(j->options_.dir, ec, why);
    if (ec) {
        spdlog::error("journal: {}", why);
        if (ec == std::errc::resource_unavailable_try_again) ec = journal_open_errc::locked;
        return nullptr;
    }
    j->dir_fd_ = ::open(j->options_.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (j->dir_fd_ < 0) {
        ec = last_errno();
        return nullptr;
    }
    auto found = list_segments(j->options_.dir, ec);
    if (ec) return nullptr;
    if ((ec = j->recover(std::move(found)))) return nullptr;
    if ((ec = j->build_start_index())) return nullptr;
    for (const auto& seg : j->segments_)
        j->disk_bytes_ += seg.bytes;
    j->sync_thread_ = std::thread([p = j.get()] { p->sync_loop(); });
    return j;
}

// The checkpoint follows every sync in the page cache (a crash of objwired loses none of it)
// and is itself synced at most once a second and at the last sync: after a power loss it may
// be a second behind, which only makes recovery call a little more of a cut "torn".
std::error_code journal::advance_checkpoint(const sync_checkpoint& reached,
                                            std::chrono::steady_clock::time_point now,
                                            bool final_sync) {
    if (auto ec = checkpoint_.write(reached)) return ec;
    if (!final_sync && now - checkpoint_synced_ < checkpoint_sync_every) return {};
    checkpoint_synced_ = now;
    return checkpoint_.sync();
}

int journal::run_sync(int fd) {
    ++syncs_;
    return options_.sync(fd);
}

std::error_code journal::open_segment(std::uint64_t first_offset, bool create) {
    const auto path = options_.dir / segment_file_name(first_offset);
    const int flags = O_WRONLY | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0);
    const int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) return last_errno();
    fd_ = fd;
    if (create) {
        segments_.push_back({path, first_offset, 0});
        dir_dirty_ = true;
    }
    return {};
}

std::error_code journal::rotate() {
    const int old = fd_;
    if (auto ec = open_segment(next_offset_, true)) return ec;  // fd_ stays the old one
    closed_fds_.push_back(old);  // synced (per policy) and closed by the sync thread
    retention_due_ = true;
    return {};
}

namespace {
std::mutex fault_mutex;
std::function<std::error_code()> write_fault;  // journal_testing::inject_write_fault

std::error_code injected_write_fault() {
    std::lock_guard lock(fault_mutex);
    return write_fault ? write_fault() : std::error_code{};
}
}  // namespace

void journal_testing::inject_write_fault(std::function<std::error_code()> fault) {
    std::lock_guard lock(fault_mutex);
    write_fault = std::move(fault);
}

std::uint64_t journal::append(std::span<std::uint8_t> block, durable_handler on_durable,
                              std::error_code& ec) {
    const std::uint32_t count = journal_block_message_count(block);
    std::unique_lock lock(mutex_);
    if (failed_) return ec = failed_, 0;
    if (stopping_ || closed_) return ec = std::make_error_code(std::errc::operation_canceled), 0;
    if (count == 0) return ec = journal_errc::empty_block, 0;
    if (next_offset_ > max_journal_offset || count > max_journal_offset - next_offset_) {
        spdlog::error(
            "journal: offset {} plus {} messages would pass the largest offset a "
            "journal gives out ({})",
            next_offset_, count, max_journal_offset);
        return ec = std::make_error_code(std::errc::value_too_large), 0;
    }
    if (segments_.back().bytes > 0 &&
        segments_.back().bytes + block.size() > options_.segment_bytes) {
        if ((ec = rotate())) return 0;
    }
    seal_journal_block(block, next_offset_);
    auto& seg = segments_.back();
    if ((ec = injected_write_fault()) || (ec = write_all_at(fd_, block, seg.bytes))) {
        // Nothing of a failed append may stay, or the next one would follow garbage.
        if (::ftruncate(fd_, static_cast<off_t>(seg.bytes)) != 0) {
            spdlog::error("journal: {}: cannot cut a failed append: {}", seg.path.string(),
                          last_errno().message());
        }
        return 0;
    }
    index_block(block, seg.bytes);
    seg.bytes += block.size();
    disk_bytes_ += block.size();
    unsynced_bytes_ += block.size();
    next_offset_ += count;
    const std::uint64_t end = next_offset_;
    if (options_.fsync == fsync_policy::never) {
        durable_offset_ = end;
        const bool wake = retention_due_ || !closed_fds_.empty();
        lock.unlock();
        if (wake) wake_sync_.notify_one();
        on_durable({});
        notify_listeners(end);
        return end;
    }
    waiters_.push_back({end, std::move(on_durable)});
    sync_schedule_.written(std::chrono::steady_clock::now());
    lock.unlock();
    wake_sync_.notify_one();
    return end;
}

void journal::fail(std::error_code ec, std::unique_lock<std::mutex>& lock) {
    if (!failed_) {
        spdlog::error("journal: {}: sync failed, nothing more is stored or acknowledged: {}",
                      options_.dir.string(), ec.message());
    }
    failed_ = ec;
    auto waiting = std::move(waiters_);
    waiters_.clear();
    synced_.notify_all();
    lock.unlock();
    for (auto& w : waiting)
        w.handler(ec);
    lock.lock();
}

// The background point of durability: syncs what the policy says when it says it, serves
// sync() requests, closes rotated segments and runs retention. Sessions never wait for it;
// their handlers are called from here once their blocks are covered by a sync.
void journal::sync_loop() {
    std::unique_lock lock(mutex_);
    auto next_retention = std::chrono::steady_clock::now() + retention_check_every;
    for (;;) {
        if (const auto at = next_sync_at()) {
            if (*at <= std::chrono::steady_clock::now()) {
                sync_once(lock);
                continue;
            }
            if (!retention_due_) {
                wake_sync_.wait_until(lock, std::min(*at, next_retention));
                continue;
            }
        }
        if (options_.fsync == fsync_policy::never || failed_) {
            for (const int old : closed_fds_)
                ::close(old);
            closed_fds_.clear();
        }
        if (stopping_) break;
        const auto now = std::chrono::steady_clock::now();
        if (retention_due_ || now >= next_retention) {
            retention_due_ = false;
            next_retention = now + retention_check_every;
            lock.unlock();
            enforce_retention();
            lock.lock();
            continue;
        }
        wake_sync_.wait_until(lock, next_retention);
    }
}

std::optional<std::chrono::steady_clock::time_point> journal::next_sync_at() const {
    constexpr auto at_once = std::chrono::steady_clock::time_point::min();
    if (failed_) return std::nullopt;
    if (sync_requested_ > sync_served_) return at_once;
    const bool dirty =
        durable_offset_ < next_offset_ || !closed_fds_.empty() || dir_dirty_ || rider_dirty_;
    if (!dirty || options_.fsync == fsync_policy::never) return std::nullopt;
    if (options_.fsync == fsync_policy::always || stopping_ ||
        unsynced_bytes_ >= options_.fsync_bytes)
        return at_once;
    // Dirty with no append waiting (a segment file recovery created): nothing to pace.
    return sync_schedule_.due().value_or(at_once);
}

void journal::sync_once(std::unique_lock<std::mutex>& lock) {
    const std::uint64_t target = next_offset_;
    const sync_checkpoint reached{segments_.back().first_offset, segments_.back().bytes, target};
    unsynced_bytes_ = 0;
    const int fd = fd_;
    auto rotated = std::move(closed_fds_);
    closed_fds_.clear();
    const bool dir = std::exchange(dir_dirty_, false);
    auto rider = std::exchange(rider_dirty_, false) ? rider_ : nullptr;
    const std::uint64_t serving = sync_requested_;
    const bool final_sync = stopping_;
    sync_schedule_.sync_started(std::chrono::steady_clock::now());
    lock.unlock();
    std::error_code ec;
    for (const int old : rotated) {
        if (!ec && run_sync(old) != 0) ec = last_errno();
        ::close(old);
    }
    if (!ec && run_sync(fd) != 0) ec = last_errno();
    if (!ec && dir && ::fsync(dir_fd_) != 0) ec = last_errno();
    const auto synced_at = std::chrono::steady_clock::now();
    if (!ec) ec = advance_checkpoint(reached, synced_at, final_sync);
    // Acknowledgements wait for the checkpoint too: the sync's length runs to here.
    const auto done_at = std::chrono::steady_clock::now();
    lock.lock();
    if (ec) {
        fail(ec, lock);
        return;
    }
    sync_schedule_.sync_finished(done_at);
    complete_sync(lock, target, serving);
    if (!rider) return;
    // After the acknowledgements: the rider's fsyncs never delay a sender's.
    lock.unlock();
    rider();
    lock.lock();
}

void journal::complete_sync(std::unique_lock<std::mutex>& lock, std::uint64_t target,
                            std::uint64_t serving) {
    durable_offset_ = std::max(durable_offset_, target);
    sync_served_ = serving;
    std::vector<waiter> done;
    while (!waiters_.empty() && waiters_.front().end_offset <= target) {
        done.push_back(std::move(waiters_.front()));
        waiters_.pop_front();
    }
    synced_.notify_all();
    lock.unlock();
    for (auto& w : done)
        w.handler({});
    notify_listeners(target);
    lock.lock();
}

std::error_code journal::sync() {
    std::unique_lock lock(mutex_);
    if (failed_) return failed_;
    if (stopping_ || closed_) return std::make_error_code(std::errc::operation_canceled);
    const std::uint64_t request = ++sync_requested_;
    wake_sync_.notify_one();
    // Served by a sync that started after this request and finished.
    synced_.wait(lock, [&] { return failed_ || stopping_ || sync_served_ >= request; });
    if (failed_) return failed_;
    if (sync_served_ < request) return std::make_error_code(std::errc::operation_canceled);
    return {};
}

void journal::request_sync() {
    std::lock_guard lock(mutex_);
    if (failed_ || stopping_ || closed_) return;
    ++sync_requested_;
    wake_sync_.notify_one();
}

void journal::set_sync_rider(std::function<void()> rider) {
    std::lock_guard lock(mutex_);
    rider_ = std::move(rider);
}

bool journal::rider_written() {
    {
        std::lock_guard lock(mutex_);
        if (!rider_ || failed_ || stopping_ || closed_ || options_.fsync == fsync_policy::never)
            return false;
        rider_dirty_ = true;
        sync_schedule_.written(std::chrono::steady_clock::now());
    }
    wake_sync_.notify_one();
    return true;
}

std::size_t journal::enforce_retention() {
    std::lock_guard pass(retention_mutex_);
    std::vector<segment_info> doomed;
    {
        std::lock_guard lock(mutex_);
        if (options_.retention_bytes > 0) {
            std::uint64_t total = 0;
            for (const auto& s : segments_)
                total += s.bytes;
            while (segments_.size() > 1 && total > options_.retention_bytes) {
                total -= segments_.front().bytes;
                doomed.push_back(std::move(segments_.front()));
                segments_.erase(segments_.begin());
            }
        }
        if (options_.retention_age.count() > 0) {
            const auto cutoff = options_.clock() - options_.retention_age;
            while (segments_.size() > 1) {
                struct stat st {};
                if (::stat(segments_.front().path.c_str(), &st) != 0) break;
                const auto modified = std::chrono::system_clock::time_point(
                    std::chrono::duration_cast<std::chrono::system_clock::duration>(
                        std::chrono::seconds(st.st_mtim.tv_sec) +
                        std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
                if (modified >= cutoff) break;
                doomed.push_back(std::move(segments_.front()));
                segments_.erase(segments_.begin());
            }
        }
        if (!doomed.empty()) {
            std::lock_guard index_lock(index_mutex_);
            index_.drop_before(segments_.front().first_offset);
        }
    }
    std::uint64_t deleted_bytes = 0;
    for (const auto& s : doomed) {
        std::error_code ec;
        std::filesystem::remove(s.path, ec);
        deleted_bytes += s.bytes;
        if (ec)
            spdlog::warn("journal: retention cannot delete {}: {}", s.path.string(), ec.message());
        else
            spdlog::info("journal: retention deleted {} ({} bytes)", s.path.filename().string(),
                         s.bytes);
    }
    if (!doomed.empty()) {
        // The journal no longer holds them even when a file could not be deleted: the
        // figures follow what readers can read.
        std::lock_guard lock(mutex_);
        disk_bytes_ -= deleted_bytes;
        retention_segments_ += doomed.size();
        retention_bytes_ += deleted_bytes;
    }
    return doomed.size();
}

std::error_code journal::build_start_index() {
    const auto start = std::chrono::steady_clock::now();
    journal_index_scan stats;
    std::lock_guard lock(index_mutex_);
    index_.clear();
    auto ec = scan_sender_index(
        segments_,
        [&](const sender_index_entry& e) {
            index_.add({e.segment_first, e.position, e.size, e.first_offset, e.count, e.time_ms,
                        e.sender_id});
        },
        stats);
    if (ec) return ec;
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    spdlog::info(
        "journal: start index: {} spans of {} blocks ({} KiB held, {} KiB read, {:.1f} ms)",
        index_.spans(), stats.blocks, index_.memory_bytes() / 1024, stats.bytes_read / 1024,
        took.count());
    return {};
}

void journal::index_block(std::span<const std::uint8_t> block, std::uint64_t position) {
    const auto head = parse_journal_block_head(block.first(journal_block_header_size));
    if (head.state != journal_block_parse::status::block) return;
    const std::string_view sender(
        reinterpret_cast<const char*>(block.data() + journal_block_header_size), head.sender_len);
    std::lock_guard lock(index_mutex_);
    index_.add({segments_.back().first_offset, position, block.size(), head.header.first_offset,
                head.header.message_count, head.header.time_ms, sender});
}

void journal::close() {
    {
        std::lock_guard lock(mutex_);
        if (closed_) return;
        stopping_ = true;
    }
    wake_sync_.notify_all();
    synced_.notify_all();
    if (sync_thread_.joinable()) sync_thread_.join();
    // The last sync's checkpoint may still wait for its own sync (at most a second old).
    if (options_.fsync != fsync_policy::never && !failed_) {
        if (auto ec = checkpoint_.sync())
            spdlog::warn("journal: cannot sync {}: {}", checkpoint_file_name, ec.message());
    }
    checkpoint_.close();
    std::deque<waiter> left;
    std::error_code ec = std::make_error_code(std::errc::operation_canceled);
    {
        std::lock_guard lock(mutex_);
        closed_ = true;
        if (failed_) ec = failed_;
        left = std::move(waiters_);
        waiters_.clear();
        for (const int old : closed_fds_)
            ::close(old);
        closed_fds_.clear();
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
        if (dir_fd_ >= 0) ::close(dir_fd_);
        dir_fd_ = -1;
    }
    for (auto& w : left)
        w.handler(ec);
}

std::uint64_t journal::subscribe(durable_listener listener) {
    std::lock_guard lock(listeners_mutex_);
    listeners_.emplace_back(++next_listener_id_, std::move(listener));
    has_listeners_.store(true);
    return next_listener_id_;
}

void journal::unsubscribe(std::uint64_t id) {
    std::lock_guard lock(listeners_mutex_);
    std::erase_if(listeners_, [id](const auto& l) { return l.first == id; });
    has_listeners_.store(!listeners_.empty());
}

void journal::notify_listeners(std::uint64_t durable_offset) {
    if (!has_listeners_.load()) return;  // a plain load on x86
    std::lock_guard lock(listeners_mutex_);
    for (const auto& [id, listener] : listeners_)
        listener(durable_offset);
}

std::uint64_t journal::next_offset() const {
    std::lock_guard lock(mutex_);
    return next_offset_;
}

std::uint64_t journal::durable_offset() const {
    std::lock_guard lock(mutex_);
    return durable_offset_;
}

std::uint64_t journal::syncs() const {
    return syncs_.load();
}

std::vector<segment_info> journal::segments() const {
    std::lock_guard lock(mutex_);
    return segments_;
}

journal_disk_stats journal::disk_stats() const {
    std::lock_guard lock(mutex_);
    journal_disk_stats d;
    d.bytes = disk_bytes_;
    d.segments = segments_.size();
    d.first_offset = segments_.empty() ? next_offset_ : segments_.front().first_offset;
    d.next_offset = next_offset_;
    d.durable_offset = durable_offset_;
    d.retention_segments = retention_segments_;
    d.retention_bytes = retention_bytes_;
    return d;
}

std::string journal::describe() const {
    std::string s =
        "journal:" + options_.dir.string() + " (fsync " + std::string(to_string(options_.fsync));
    if (options_.fsync == fsync_policy::interval)
        s += " " + std::to_string(options_.fsync_interval.count()) + "ms";
    return s + ")";
}

}  // namespace objwire::daemon
