// Every session ends by one path that closes its socket, whatever ended it, and objwired
// stops when told: a session that dies of an exception leaves no socket behind and SIGTERM
// still ends the daemon; out of file descriptors, the accept loop pauses and logs a bounded
// number of lines, and accepts again once descriptors are free. objwired runs as a child
// process here (its own signals and its own descriptor limit).
#include <sys/resource.h>

#include <cstdio>
#include <filesystem>

#include <objwire/connection.hpp>
#include "../support/descriptor_limit.hpp"
#include "config/settings.hpp"
#include "proto/control.hpp"
#include "proto/frame.hpp"
#include "resume_support.hpp"
#include "send_helpers.hpp"

namespace objwire::test {
namespace {

namespace fs = std::filesystem;

class scratch_dir {
  public:
    scratch_dir() {
        path_ = fs::temp_directory_path() /
                ("objwire-session-end-" + std::to_string(::getpid()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~scratch_dir() { fs::remove_all(path_); }
    const fs::path& path() const { return path_; }

  private:
    fs::path path_;
};

int connect_to(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

void send_hello(int fd) {
    hello h;
    h.client_name = "raw";
    h.sender_id = "raw-" + std::to_string(fd);
    byte_buffer payload, frame;
    encode_hello(h, payload);
    append_frame(frame, frame_kind::hello, 0, payload.span());
    ASSERT_EQ(::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(frame.size()));
}

// Whether the daemon closed its end (end of stream, or a reset) within `limit`, reading and
// dropping whatever it sent first.
bool closed_by_daemon(int fd, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
        char buf[4096];
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return true;
    }
}

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

// Waits (at most 10 s) until the daemon has logged `what`.
bool wait_for_log(const child_objwired& d, const std::string& what) {
    return wait_until([&] { return d.log().find(what) != std::string::npos; });
}

// Before: the session that threw was dropped from the count without being closed; its writer
// waited forever, so the socket stayed in CLOSE-WAIT and SIGTERM never ended objwired.
TEST(SessionEnd, AnExceptionInASessionClosesItsSocketAndSigtermStillExits) {
    scratch_dir dir;
    child_objwired d(dir.path() / "data", dir.path() / "log", 0,
                     {"OBJWIRED_TEST_FAULT=session_exception", "OBJWIRE_SERVER_SHUTDOWN_GRACE=2s",
                      "OBJWIRE_METRICS_LISTEN=", "OBJWIRE_LIMITS_IDLE_TIMEOUT=5m"},
                     OBJWIRED_FAULTS_PATH);
    ASSERT_TRUE(d.start()) << d.log();
    std::vector<int> peers;
    for (int i = 0; i < 4; ++i) {
        const int fd = connect_to(d.port());
        ASSERT_GE(fd, 0);
        send_hello(fd);
        peers.push_back(fd);
    }
    // Each session throws after its welcome: the daemon closes each socket.
    for (const int fd : peers)
        EXPECT_TRUE(closed_by_daemon(fd, std::chrono::seconds(10))) << d.log();
    for (const int fd : peers)
        ::close(fd);
    EXPECT_EQ(count_of(d.log(), "session ended by exception: injected fault"), 4u) << d.log();
    // One more, idle, still open at the signal: shutdown closes it too.
    const int idle = connect_to(d.port());
    ASSERT_GE(idle, 0);
    // A liveness bound, generous for a loaded machine: the grace (2 s) plus its second, and
    // slack; before the fix it never exited.
    const auto status = d.signal_and_wait_for(SIGTERM, std::chrono::seconds(20));
    ASSERT_TRUE(status.has_value()) << "objwired still running after SIGTERM:\n" << d.log();
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << d.log();
    EXPECT_TRUE(closed_by_daemon(idle, std::chrono::seconds(5)));
    ::close(idle);
}

// What the daemon has sent on `fd` within `limit` (until it closes or stops sending).
std::string received_within(int fd, std::chrono::milliseconds limit) {
    std::string got;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0))) <= 0)
            return got;
        char buf[4096];
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return got;
        got.append(buf, static_cast<std::size_t>(n));
    }
}

// Descriptors objwired `pid` has open now.
// Limits the process to what it has open now and `room` descriptors more.
bool leave_descriptors(pid_t pid, rlim_t room) {
    rlim_t open_now = 0;
    for ([[maybe_unused]] const auto& e :
         fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd"))
        ++open_now;
    const rlimit lim{open_now + room, open_now + room};
    return ::prlimit(pid, RLIMIT_NOFILE, &lim, nullptr) == 0;
}

// Before: under a low descriptor limit the accept loop retried at once, logging each failure
// (millions of lines). The connections say their hello, so nothing can be shed: the daemon
// pauses, and spends its spare descriptor to tell a peer in the backlog why it is refused
// rather than leave it unanswered.
TEST(SessionEnd, OutOfDescriptorsAcceptingPausesAndResumes) {
    scratch_dir dir;
    child_objwired d(dir.path() / "data", dir.path() / "log", 0,
                     {"OBJWIRE_LIMITS_HANDSHAKE_TIMEOUT=60s", "OBJWIRE_METRICS_LISTEN="});
    ASSERT_TRUE(d.start()) << d.log();
    ASSERT_TRUE(leave_descriptors(d.pid(), 6));  // room for a few connections more

    std::vector<int> idle;
    for (int i = 0; i < 40; ++i) {
        const int fd = connect_to(d.port());  // the kernel completes them in the backlog
        ASSERT_GE(fd, 0);
        send_hello(fd);
        idle.push_back(fd);
    }
    ASSERT_TRUE(wait_for_log(d, "accept failed")) << d.log();
    // Out of descriptors for a while: before, thousands of lines a second. The stretch the
    // peers keep the descriptors taken is the test's input; the count over it is the check.
    pause_as_peer(std::chrono::milliseconds(1500));
    const auto log = d.log();
    const auto lines = count_of(log, "accept failed");
    EXPECT_LE(lines, 5u) << "accept failures logged " << lines << " times";
    EXPECT_NE(log.find("pausing accepting"), std::string::npos) << log;
    // The first peer the daemon could not take is told why, through the spare descriptor.
    EXPECT_NE(log.find("refused: out of file descriptors (RLIMIT_NOFILE = "), std::string::npos)
        << log;
    std::string told;
    for (const int fd : idle) {
        told = received_within(fd, std::chrono::milliseconds(0));
        if (told.find("out of file descriptors") != std::string::npos) break;
    }
    EXPECT_NE(told.find("out of file descriptors: every one of the daemon's "), std::string::npos)
        << "no peer was told why it was refused";

    // Descriptors free again: the daemon takes connections and stores objects.
    for (const int fd : idle)
        ::close(fd);
    auto cs = config::client_settings{};
    cs.to_host = "127.0.0.1";
    cs.to_port = d.port();
    cs.connect_timeout = std::chrono::seconds(10);
    client::connection c(cs, "after");
    ASSERT_FALSE(c.open()) << c.last_error() << "\n" << d.log();
    ASSERT_TRUE(send_people_and_close(c, 100));
    EXPECT_EQ(c.stats().objects_acked, 100u);
    EXPECT_TRUE(wait_for_log(d, "accepting again after")) << d.log();
    const auto status = d.signal_and_wait_for(SIGTERM, std::chrono::seconds(20));
    ASSERT_TRUE(status.has_value()) << d.log();
}

// How many of `fds` the daemon has closed (its end of the stream, or a reset), without waiting.
std::size_t closed_now(const std::vector<int>& fds) {
    std::vector<pollfd> polled;
    for (const int fd : fds)
        polled.push_back({fd, POLLRDHUP, 0});
    if (::poll(polled.data(), polled.size(), 0) < 0) return 0;
    std::size_t n = 0;
    for (const auto& p : polled)
        n += (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
    return n;
}

// Out of descriptors with connections that said their hello and connections that did not: the
// oldest of those that did not is shed for each newcomer, so an honest client is served at
// once (before, it waited in the backlog until a handshake timeout freed a descriptor).
TEST(SessionEnd, OutOfDescriptorsTheOldestWaitingForItsHelloIsShedForANewcomer) {
    scratch_dir dir;
    child_objwired d(dir.path() / "data", dir.path() / "log", 0,
                     {"OBJWIRE_LIMITS_HANDSHAKE_TIMEOUT=5m", "OBJWIRE_METRICS_LISTEN="});
    ASSERT_TRUE(d.start()) << d.log();
    ASSERT_TRUE(leave_descriptors(d.pid(), 8));
    std::vector<int> greeted, silent;
    for (int i = 0; i < 4; ++i) {
        greeted.push_back(connect_to(d.port()));
        ASSERT_GE(greeted.back(), 0);
        send_hello(greeted.back());
        // Its welcome: the daemon took it and its hello before the silent ones come.
        pollfd p{greeted.back(), POLLIN, 0};
        ASSERT_EQ(::poll(&p, 1, 10000), 1) << d.log();
    }
    for (int i = 0; i < 30; ++i) {
        silent.push_back(connect_to(d.port()));
        ASSERT_GE(silent.back(), 0);
    }
    // The descriptors are full of silent connections: the backlog is taken by shedding them.
    ASSERT_TRUE(wait_until([&] { return closed_now(silent) >= 26; }, std::chrono::seconds(20),
                           std::chrono::milliseconds(20)))
        << closed_now(silent) << " of 30 closed\n"
        << d.log();

    const auto begin = std::chrono::steady_clock::now();
    auto cs = config::client_settings{};
    cs.to_host = "127.0.0.1";
    cs.to_port = d.port();
    client::connection c(cs, "honest");
    ASSERT_FALSE(c.open()) << c.last_error() << "\n" << d.log();
    ASSERT_TRUE(send_people_and_close(c, 100));
    const auto took = std::chrono::steady_clock::now() - begin;
    EXPECT_EQ(c.stats().objects_acked, 100u);
    EXPECT_LT(took, std::chrono::seconds(1)) << std::chrono::duration<double>(took).count() << " s";
    const auto log = d.log();
    EXPECT_NE(log.find("closing connection before its hello: out of file descriptors (the limit, "
                       "RLIMIT_NOFILE, is "),
              std::string::npos)
        << log;
    EXPECT_EQ(closed_now(greeted), 0u) << "a connection that said its hello was shed";
    for (const int fd : greeted)
        ::close(fd);
    for (const int fd : silent)
        ::close(fd);
    const auto status = d.signal_and_wait_for(SIGTERM, std::chrono::seconds(20));
    ASSERT_TRUE(status.has_value()) << d.log();
}

// Out of descriptors with every connection past its hello: the sender idle longest (no frame
// for limits.shed_idle_after, here 1 s) is told why and closed for a newcomer, which is served
// at once; before, the newcomer was refused through the spare descriptor.
TEST(SessionEnd, OutOfDescriptorsTheSenderIdleLongestIsShedForANewcomer) {
    scratch_dir dir;
    child_objwired d(dir.path() / "data", dir.path() / "log", 0,
                     {"OBJWIRE_LIMITS_HANDSHAKE_TIMEOUT=5m", "OBJWIRE_LIMITS_SHED_IDLE_AFTER=1s",
                      "OBJWIRE_METRICS_LISTEN="});
    ASSERT_TRUE(d.start()) << d.log();
    ASSERT_TRUE(leave_descriptors(d.pid(), 6));  // the 6 connections
    std::vector<int> greeted;
    for (int i = 0; i < 6; ++i) {
        greeted.push_back(connect_to(d.port()));
        ASSERT_GE(greeted.back(), 0);
        send_hello(greeted.back());
        pollfd p{greeted.back(), POLLIN, 0};  // its welcome
        ASSERT_EQ(::poll(&p, 1, 10000), 1) << d.log();
        (void)received_within(greeted.back(), std::chrono::milliseconds(0));
    }
    // The stretch they stay silent is the test's input: past limits.shed_idle_after.
    pause_as_peer(std::chrono::milliseconds(1500));

    auto cs = config::client_settings{};
    cs.to_host = "127.0.0.1";
    cs.to_port = d.port();
    cs.sender_id = "honest";
    client::connection c(cs, "honest");
    ASSERT_FALSE(c.open()) << c.last_error() << "\n" << d.log();
    ASSERT_TRUE(send_people_and_close(c, 100)) << d.log();
    EXPECT_EQ(c.stats().objects_acked, 100u);
    // The first greeted is the idlest: it got the error frame saying why, then was closed.
    const auto told = received_within(greeted.front(), std::chrono::seconds(10));
    EXPECT_NE(told.find("limits.shed_idle_after"), std::string::npos) << told << "\n" << d.log();
    EXPECT_TRUE(wait_until([&] { return closed_now({greeted.front()}) == 1; },
                           std::chrono::seconds(10), std::chrono::milliseconds(20)))
        << d.log();
    EXPECT_NE(d.log().find("closing idle sender: out of file descriptors"), std::string::npos)
        << d.log();
    for (const int fd : greeted)
        ::close(fd);
    const auto status = d.signal_and_wait_for(SIGTERM, std::chrono::seconds(20));
    ASSERT_TRUE(status.has_value()) << d.log();
}

// Before: 2,000 connections that never said a hello held every descriptor of a daemon limited
// to 512 until their handshake timeout, accepting paused, and a send waited 17.3 s. Now the
// oldest of those waiting for their hello are shed (limits.max_pending_hellos_per_address),
// the descriptors never run out, and a send is served at once.
TEST(SessionEnd, SilentConnectionsAreShedAndASendIsServedUnderADescriptorLimit) {
    constexpr int silent_count = 2000;
    raise_descriptor_limit(silent_count + 256);
    scratch_dir dir;
    // A handshake timeout longer than any wait here: only shedding can close the silent ones.
    child_objwired d(dir.path() / "data", dir.path() / "log", 0,
                     {"OBJWIRE_LIMITS_HANDSHAKE_TIMEOUT=5m", "OBJWIRE_METRICS_LISTEN="});
    ASSERT_TRUE(d.start()) << d.log();
    const rlimit lim{512, 512};
    ASSERT_EQ(::prlimit(d.pid(), RLIMIT_NOFILE, &lim, nullptr), 0);

    std::vector<int> silent;
    for (int i = 0; i < silent_count; ++i) {
        const int fd = connect_to(d.port());  // the kernel completes them in the backlog
        ASSERT_GE(fd, 0) << i;
        silent.push_back(fd);
    }
    // All from 127.0.0.1: every one but the cap's worth is shed, oldest first. The wait is for
    // the daemon to take them from its backlog; the count is the check.
    const std::size_t kept = config::daemon_settings{}.max_pending_hellos_per_address;
    const std::size_t expected_shed = silent_count - kept;
    const bool shed = wait_until([&] { return closed_now(silent) >= expected_shed; },
                                 std::chrono::seconds(60), std::chrono::milliseconds(20));
    EXPECT_TRUE(shed) << closed_now(silent) << " of " << silent_count << " closed\n" << d.log();
    EXPECT_EQ(closed_now(silent), expected_shed) << "the newest " << kept << " wait on";

    // A normal send while those still wait: served within the bound, not after their timeout.
    const auto begin = std::chrono::steady_clock::now();
    auto cs = config::client_settings{};
    cs.to_host = "127.0.0.1";
    cs.to_port = d.port();
    client::connection c(cs, "honest");
    ASSERT_FALSE(c.open()) << c.last_error() << "\n" << d.log();
    ASSERT_TRUE(send_people_and_close(c, 100));
    const auto took = std::chrono::steady_clock::now() - begin;
    std::printf(
        "2,000 silent connections, descriptor limit 512: %zu shed; a send of 100 objects "
        "took %.3f s\n",
        closed_now(silent), std::chrono::duration<double>(took).count());
    EXPECT_EQ(c.stats().objects_acked, 100u);
    EXPECT_LT(took, std::chrono::seconds(2))
        << std::chrono::duration<double>(took).count() << " s\n"
        << d.log();
    const auto log = d.log();
    EXPECT_EQ(log.find("accept failed"), std::string::npos) << "descriptors ran out:\n" << log;
    EXPECT_NE(log.find("(limits.max_pending_hellos_per_address = "), std::string::npos) << log;
    for (const int fd : silent)
        ::close(fd);
    const auto status = d.signal_and_wait_for(SIGTERM, std::chrono::seconds(20));
    ASSERT_TRUE(status.has_value()) << d.log();
}

}  // namespace
}  // namespace objwire::test
