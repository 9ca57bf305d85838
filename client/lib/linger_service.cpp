#include "client/lib/linger_service.hpp"

#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <limits>
#include <thread>

#include "client/lib/coarse_clock.hpp"

namespace objwire::client {
namespace {

constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t wake_token = 0;  // ids start at 1

}  // namespace

linger_service& linger_service::instance() {
    // Never destroyed: a connection destroyed during static destruction still withdraws from
    // it, and its thread may still be ending when the process exits.
    static linger_service* const service = [] {
        auto* s = new linger_service;
        ::pthread_atfork([] { instance().mu_.lock(); }, [] { instance().mu_.unlock(); },
                         [] { instance().after_fork_in_child(); });
        return s;
    }();
    return *service;
}

linger_service::linger_service() {
    epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = wake_token;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
}

linger_service::~linger_service() {
    std::unique_lock lock(mu_);
    stop_ = true;
    wake();
    idle_cv_.wait(lock, [this] { return !running_; });
    lock.unlock();
    ::close(epoll_fd_);
    ::close(wake_fd_);
}

void linger_service::after_fork_in_child() {
    mu_.unlock();  // held by the prepare handler, in the parent's name
    clients_.clear();
    times_ = {};
    watched_.clear();
    in_turn_ = 0;
    sleep_until_ = 0;
    running_ = false;
    // The parent's epoll set is shared with the child: the child's watches go in a set of its
    // own.
    ::close(epoll_fd_);
    epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = wake_token;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
}

std::uint64_t linger_service::enrol(client& c) {
    std::lock_guard lock(mu_);
    const std::uint64_t id = next_id_++;
    clients_[id].c = &c;
    if (!running_) start_locked();
    return id;
}

void linger_service::start_locked() {
    running_ = true;
    stop_ = false;
    std::thread([this] { run(); }).detach();
}

void linger_service::withdraw(std::uint64_t id) {
    std::unique_lock lock(mu_);
    auto it = clients_.find(id);
    if (it == clients_.end()) return;
    // Its socket is not touched here: its close takes an armed watch out of the set, and an
    // event that comes first names an id no longer enrolled.
    if (auto w = watched_.find(it->second.fd); w != watched_.end() && w->second == id)
        watched_.erase(w);
    clients_.erase(it);
    idle_cv_.wait(lock, [&] { return in_turn_ != id; });
    if (clients_.empty()) wake();  // the thread ends now, not at its next time
}

void linger_service::at(std::uint64_t id, std::uint64_t due_ns) {
    std::lock_guard lock(mu_);
    auto it = clients_.find(id);
    if (it == clients_.end()) return;
    unwatch_locked(id, it->second);
    it->second.due_ns = due_ns;
    times_.emplace(due_ns, id);
    if (due_ns < sleep_until_) wake();
}

void linger_service::look_again(std::uint64_t id, std::uint64_t due_ns) {
    std::lock_guard lock(mu_);
    auto it = clients_.find(id);
    if (it == clients_.end()) return;
    entry& e = it->second;
    // A watch armed since, or an earlier time, is newer word from the connection than the
    // turn that was missed.
    if (e.armed || (e.due_ns != 0 && e.due_ns <= due_ns)) return;
    e.due_ns = due_ns;
    times_.emplace(due_ns, id);
    if (due_ns < sleep_until_) wake();
}

void linger_service::when_readable(std::uint64_t id, int fd) {
    std::lock_guard lock(mu_);
    auto it = clients_.find(id);
    if (it == clients_.end()) return;
    entry& e = it->second;
    if (e.fd != fd) {  // a resume's new socket: closing the old one took its watch away
        if (auto w = watched_.find(e.fd); w != watched_.end() && w->second == id) watched_.erase(w);
        e.armed = false;
    }
    e.due_ns = 0;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
    ev.data.u64 = id;
    int rc = ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev);
    if (rc != 0 && errno == ENOENT) rc = ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    if (rc != 0) {  // not a socket epoll can watch now: a turn soon looks again
        e.due_ns = coarse_now_ns();
        times_.emplace(e.due_ns, id);
        wake();
        return;
    }
    e.fd = fd;
    e.armed = true;
    watched_[fd] = id;
}

void linger_service::unwatch_locked(std::uint64_t id, entry& e) {
    // Only an armed watch could still fire: a spent one stays in the set, silent, until the
    // socket is closed (which takes it out) or watched again. So the only fd this touches is
    // one the connection watches now, from a call that holds the connection's mutex - the
    // one a close of that socket holds too.
    if (e.armed)
        if (auto w = watched_.find(e.fd); w != watched_.end() && w->second == id) {
            ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, e.fd, nullptr);
            watched_.erase(w);
        }
    e.fd = -1;
    e.armed = false;
}

std::size_t linger_service::clients() const {
    std::lock_guard lock(mu_);
    return clients_.size();
}

void linger_service::wake() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(wake_fd_, &one, sizeof one);
}

int linger_service::take_due(std::uint64_t now_ns, std::vector<std::uint64_t>& due) {
    while (!times_.empty()) {
        const auto [at_ns, id] = times_.top();
        auto it = clients_.find(id);
        if (it == clients_.end() || it->second.due_ns != at_ns) {  // replaced or withdrawn
            times_.pop();
            continue;
        }
        if (at_ns > now_ns) {  // whole milliseconds, at least one: the clock is coarse
            const std::uint64_t ms = (at_ns - now_ns + 999'999) / 1'000'000;
            return static_cast<int>(std::min<std::uint64_t>(ms, 60'000));
        }
        times_.pop();
        it->second.due_ns = 0;
        due.push_back(id);
    }
    return -1;
}

void linger_service::run() {
    std::array<epoll_event, 64> events{};
    std::vector<std::uint64_t> due;
    std::unique_lock lock(mu_);
    while (!stop_ && !clients_.empty()) {
        due.clear();
        const std::uint64_t now = coarse_now_ns();
        const int wait_ms = take_due(now, due);
        if (due.empty()) {
            sleep_until_ =
                wait_ms < 0 ? never : now + static_cast<std::uint64_t>(wait_ms) * 1'000'000;
            lock.unlock();
            const int n =
                ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), wait_ms);
            lock.lock();
            sleep_until_ = 0;
            for (int i = 0; i < n; ++i) {
                const std::uint64_t id = events[static_cast<std::size_t>(i)].data.u64;
                if (id == wake_token) {
                    std::uint64_t count = 0;
                    [[maybe_unused]] const auto r = ::read(wake_fd_, &count, sizeof count);
                    continue;
                }
                auto it = clients_.find(id);
                if (it == clients_.end() || !it->second.armed) continue;  // withdrawn, moved on
                it->second.armed = false;  // one-shot: the watch is spent
                due.push_back(id);
            }
        }
        for (const std::uint64_t id : due) {
            auto it = clients_.find(id);
            if (it == clients_.end()) continue;
            client* c = it->second.c;
            in_turn_ = id;
            lock.unlock();
            c->turn();
            lock.lock();
            in_turn_ = 0;
            idle_cv_.notify_all();
        }
    }
    running_ = false;
    idle_cv_.notify_all();
}

}  // namespace objwire::client
