// The one thread of a process that times every connection's batch.linger and watches the
// sockets of connections waiting for acks while their callers make no call (docs/LIBRARY.md,
// "Linger"). A connection is a client of it: the service calls its turn() when the time it
// asked for comes or when the socket it named has bytes (or an end) to read, and the client
// decides what follows - another time, the socket, nothing, or a thread of its own for work
// that may block (writing a due batch, taking acks, a resume), which hands back when done.
// So a thousand connections cost one thread while their callers are busy or idle, not a
// thousand that wake and take their connection's lock on every ack.
//
// The thread runs while any client is enrolled, and is started again by the next enrolment
// (a child of fork() starts its own). Clients' turns run on it one at a time and must not
// block: a client whose lock is taken asks for a later turn instead.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

namespace objwire::client {

class linger_service {
  public:
    class client {
      public:
        // On the service's thread, without the service's lock.
        virtual void turn() = 0;

      protected:
        ~client() = default;
    };

    // The process's service.
    static linger_service& instance();

    linger_service();
    ~linger_service();
    linger_service(const linger_service&) = delete;
    linger_service& operator=(const linger_service&) = delete;

    // The client's id, for the calls below. Starts the thread if none runs.
    std::uint64_t enrol(client& c);
    // After it returns no turn of the client runs, and none will; the thread ends with the
    // last client. Never call it from a turn.
    void withdraw(std::uint64_t id);
    // A turn at `due_ns` (coarse clock), replacing the time or socket asked for before.
    void at(std::uint64_t id, std::uint64_t due_ns);
    // A turn at `due_ns` unless a watch is armed or an earlier time asked for: a turn that
    // found the client busy, asked for again by the client once free (it holds no lock of
    // the client's then, so the socket is not touched).
    void look_again(std::uint64_t id, std::uint64_t due_ns);
    // A turn once `fd` is readable or ends, replacing the time asked for before.
    void when_readable(std::uint64_t id, int fd);

    // Enrolled clients; the thread runs while there is one.
    std::size_t clients() const;

  private:
    struct entry {
        client* c = nullptr;
        std::uint64_t due_ns = 0;  // 0: no time asked for
        int fd = -1;               // the socket in the epoll set for it, -1: none
        bool armed = false;        // its watch has not fired yet
    };
    void run();
    void start_locked();
    // Ids whose time has come, their entries' times cleared; the wait until the next, in ms.
    int take_due(std::uint64_t now_ns, std::vector<std::uint64_t>& due);
    void unwatch_locked(std::uint64_t id, entry& e);
    void wake();
    // fork(): the child has no thread and no clients of its own yet.
    void after_fork_in_child();

    mutable std::mutex mu_;
    std::condition_variable idle_cv_;  // a turn ended, or the thread did
    std::unordered_map<std::uint64_t, entry> clients_;
    // Times asked for, earliest first; an item whose time its entry no longer holds is skipped.
    using timed = std::pair<std::uint64_t, std::uint64_t>;  // due_ns, id
    std::priority_queue<timed, std::vector<timed>, std::greater<>> times_;
    // fd -> id of the client that last asked to watch it: an fd closed and reused by another
    // connection is never taken out of the set on the first one's behalf.
    std::unordered_map<int, std::uint64_t> watched_;
    std::uint64_t next_id_ = 1;
    std::uint64_t in_turn_ = 0;      // the id whose turn runs now
    std::uint64_t sleep_until_ = 0;  // the thread's wait ends by then (0: not waiting on a time)
    bool stop_ = false;
    bool running_ = false;  // the thread runs (detached: it ends by itself with the last client)
    int epoll_fd_ = -1;
    int wake_fd_ = -1;  // an eventfd in the epoll set: an earlier time, a client gone
};

}  // namespace objwire::client
