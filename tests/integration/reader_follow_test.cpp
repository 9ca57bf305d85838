// The library's following reader across daemon restarts (include/objwire/reader.hpp,
// docs/LIBRARY.md "Following and reconnecting"): objwired as a child process on a fixed port,
// stopped with SIGTERM and killed with SIGKILL under a reader that only calls next(). Every
// object comes out exactly once, in offset order and equal to what was sent; a cursor follower
// keeps its cursor across the restart; a stop ends the waits between reconnections; a cursor
// reader ended by close() or finish_cursor() has let go of the name when the call returns.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include <objwire/connection.hpp>
#include <objwire/reader.hpp>
#include "resume_support.hpp"

namespace objwire::test {
namespace {

message numbered(std::int64_t part, std::int64_t i) {
    static const auto type = make_record_type("Numbered", {"part", "i", "pad"});
    return {make_record(type, {part, i, std::string(static_cast<std::size_t>(20 + i % 40), 'x')}),
            {}};
}

// A self-pipe as a signal handler would write it: read_options::stop_fd.
struct stop_pipe {
    stop_pipe() { EXPECT_EQ(::pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0); }
    ~stop_pipe() {
        ::close(fds[0]);
        ::close(fds[1]);
    }
    void request() {
        flag = true;
        EXPECT_EQ(::write(fds[1], "s", 1), 1);
    }
    std::atomic<bool> flag{false};
    int fds[2] = {-1, -1};
};

class ReaderFollow : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("objwire-reader-follow-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override {
        daemon_.reset();
        std::filesystem::remove_all(dir_);
    }
    // Starts objwired on the data directory: on a free port the first time, then on the same
    // port, so the reader finds it again.
    void start_daemon() {
        daemon_.emplace(dir_ / "data", dir_ / ("log-" + std::to_string(starts_++)), port_);
        ASSERT_TRUE(daemon_->start()) << daemon_->log();
        port_ = daemon_->port();
    }
    config::client_settings settings() const {
        config::client_settings s;
        s.to_port = port_;
        s.resume_retry_for = std::chrono::seconds(60);
        return s;
    }
    // Sends part `part` (`n` objects) and waits for every acknowledgement.
    void send_part(std::int64_t part, std::int64_t n) {
        auto s = settings();
        s.resume_retry_for = std::chrono::milliseconds(0);
        client::connection c(s, "reader-follow-test");
        ASSERT_FALSE(c.open()) << c.last_error();
        for (std::int64_t i = 0; i < n; ++i) {
            sent_.push_back(numbered(part, i));
            ASSERT_FALSE(c.send(sent_.back())) << c.last_error();
        }
        ASSERT_FALSE(c.close()) << c.last_error();
    }

    std::filesystem::path dir_;
    std::optional<child_objwired> daemon_;
    std::uint16_t port_ = 0;
    int starts_ = 0;
    std::vector<message> sent_;
};

// What a reader on its own thread handed out so far.
class collected {
  public:
    void add(client::stored_message m) {
        std::lock_guard lock(mutex_);
        got_.push_back(std::move(m));
    }
    std::size_t size() const {
        std::lock_guard lock(mutex_);
        return got_.size();
    }
    std::vector<client::stored_message> take() {
        std::lock_guard lock(mutex_);
        return std::move(got_);
    }

  private:
    mutable std::mutex mutex_;
    std::vector<client::stored_message> got_;
};

void expect_exactly_once(const std::vector<client::stored_message>& got,
                         const std::vector<message>& sent) {
    ASSERT_EQ(got.size(), sent.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].offset, i) << "offsets handed out twice or skipped";
        ASSERT_EQ(canonical(got[i].value), canonical(sent[i])) << "offset " << i;
    }
}

TEST_F(ReaderFollow, EveryObjectOnceAcrossASigtermAndAKillRestart) {
    start_daemon();
    send_part(0, 1500);
    stop_pipe stop;
    collected out;
    std::vector<std::string> reconnect_reasons;
    client::read_options o;
    o.follow = true;
    o.reconnect = true;
    o.stop = &stop.flag;
    o.stop_fd = stop.fds[0];
    o.on_reconnect = [&](const std::string& why, std::uint64_t) {
        reconnect_reasons.push_back(why);
    };
    client::reader r(settings(), o);
    ASSERT_FALSE(r.open()) << r.last_error();
    std::thread follower([&] {
        client::stored_message m;
        while (r.next(m))
            out.add(std::move(m));
    });
    ASSERT_TRUE(eventually([&] { return out.size() >= 1500; })) << out.size();
    const int term = daemon_->signal_and_wait(SIGTERM);
    EXPECT_TRUE(WIFEXITED(term) && WEXITSTATUS(term) == 0) << daemon_->log();
    start_daemon();
    send_part(1, 1500);
    ASSERT_TRUE(eventually([&] { return out.size() >= 3000; })) << out.size();
    const int killed = daemon_->signal_and_wait(SIGKILL);
    EXPECT_TRUE(WIFSIGNALED(killed) && WTERMSIG(killed) == SIGKILL);
    start_daemon();
    send_part(2, 1500);
    ASSERT_TRUE(eventually([&] { return out.size() >= 4500; })) << out.size();
    stop.request();
    follower.join();
    EXPECT_TRUE(r.stopped());
    EXPECT_FALSE(r.error()) << r.last_error();
    EXPECT_GE(r.reconnections(), 2u);
    EXPECT_FALSE(reconnect_reasons.empty());
    EXPECT_EQ(r.resume_at(), 4500u);
    EXPECT_EQ(r.stats().objects, 4500u);
    expect_exactly_once(out.take(), sent_);
}

// A cursor follower keeps its cursor across a kill -9: it says its last ack again to the new
// daemon, hands out nothing twice although that daemon starts at the stored position, and
// its clean end stores the exact position and frees the name before finish_cursor returns.
TEST_F(ReaderFollow, ACursorFollowerKeepsItsCursorAcrossAKill) {
    start_daemon();
    send_part(0, 1000);
    stop_pipe stop;
    collected out;
    client::read_options o;
    o.follow = true;
    o.reconnect = true;
    o.cursor = "etl";
    o.stop = &stop.flag;
    o.stop_fd = stop.fds[0];
    client::reader r(settings(), o);
    ASSERT_FALSE(r.open()) << r.last_error();
    std::atomic<std::uint64_t> acked{0};
    std::thread follower([&] {
        client::stored_message m;
        while (r.next(m)) {
            const std::uint64_t next = m.offset + 1;
            out.add(std::move(m));
            // Half of what was read is acknowledged: the daemon's cursor stays behind.
            if (r.ready() == 0 && !r.ack(next / 2)) acked = next / 2;
        }
    });
    ASSERT_TRUE(eventually([&] { return out.size() >= 1000 && acked == 500; })) << out.size();
    daemon_->signal_and_wait(SIGKILL);
    start_daemon();
    send_part(1, 1000);
    ASSERT_TRUE(eventually([&] { return out.size() >= 2000; })) << out.size();
    stop.request();
    follower.join();
    ASSERT_TRUE(r.stopped());
    ASSERT_FALSE(r.error()) << r.last_error();
    EXPECT_GE(r.reconnections(), 1u);
    expect_exactly_once(out.take(), sent_);
    ASSERT_FALSE(r.finish_cursor(2000)) << r.last_error();
    // Free at once, and at the exact position.
    client::read_options again = o;
    again.follow = false;
    again.stop = nullptr;
    again.stop_fd = -1;
    client::reader next(settings(), again);
    ASSERT_FALSE(next.open()) << next.last_error();
    EXPECT_EQ(next.start(), 2000u);
}

// A stop while the daemon is gone ends the reconnections: next() returns false, stopped(), and
// no failure (resume.retry_for is 60 s: only the stop can have ended it).
TEST_F(ReaderFollow, AStopEndsTheWaitsBetweenReconnections) {
    start_daemon();
    send_part(0, 10);
    stop_pipe stop;
    std::atomic<int> tries{0};
    client::read_options o;
    o.follow = true;
    o.reconnect = true;
    o.stop = &stop.flag;
    o.stop_fd = stop.fds[0];
    o.on_reconnect = [&](const std::string&, std::uint64_t at) {
        EXPECT_EQ(at, 10u);
        ++tries;
    };
    client::reader r(settings(), o);
    ASSERT_FALSE(r.open()) << r.last_error();
    std::atomic<bool> ended{false};
    std::atomic<std::size_t> got{0};
    std::thread follower([&] {
        client::stored_message m;
        while (r.next(m))
            ++got;
        ended = true;
    });
    ASSERT_TRUE(eventually([&] { return got == 10; }));
    daemon_->signal_and_wait(SIGKILL);
    // Past the pauses of 0, 100, 200 and 400 ms: the reader waits 800 ms or more now.
    ASSERT_TRUE(eventually([&] { return tries >= 5; })) << tries;
    stop.request();
    const bool within = wait_until([&] { return ended.load(); }, std::chrono::seconds(20));
    follower.join();
    EXPECT_TRUE(within);
    EXPECT_TRUE(r.stopped());
    EXPECT_FALSE(r.error()) << r.last_error();
    EXPECT_FALSE(r.is_open());
    const int after = tries;
    client::stored_message m;
    EXPECT_FALSE(r.next(m));
    EXPECT_EQ(tries, after) << "reconnected after the stop";
}

// Twenty cursor readers one after another, each ended by close() (a follower) or by
// finish_cursor(): each takes the cursor at once, never "in use".
TEST_F(ReaderFollow, CursorReadersBackToBackEachTakeTheCursor) {
    start_daemon();
    send_part(0, 200);
    client::read_options o;
    o.cursor = "back-to-back";
    for (int run = 0; run < 20; ++run) {
        SCOPED_TRACE("run " + std::to_string(run));
        o.follow = run % 2 == 0;
        client::reader r(settings(), o);
        ASSERT_FALSE(r.open()) << r.last_error();
        client::stored_message m;
        // A follower reads what is stored, then ends with close(); a reader ends at the end.
        const std::uint64_t want = run == 0 ? 200 : 0;
        for (std::uint64_t i = 0; i < want; ++i)
            ASSERT_TRUE(r.next(m)) << r.last_error();
        if (o.follow) {
            ASSERT_FALSE(r.ack(r.resume_at())) << r.last_error();
            r.close();
            EXPECT_TRUE(r.finished()) << r.last_error();
        } else {
            ASSERT_FALSE(r.next(m));
            ASSERT_FALSE(r.error()) << r.last_error();
            ASSERT_FALSE(r.finish_cursor(r.resume_at())) << r.last_error();
        }
    }
}

// A listener whose accept queue (backlog 0) is full: the kernel drops the next SYN, so a
// connect to it stays in progress (SYN_SENT) until its timeout.
class full_listener {
  public:
    full_listener() {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), len), 0);
        EXPECT_EQ(::listen(fd_, 0), 0);
        EXPECT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len), 0);
        port_ = ntohs(a.sin_port);
        filler_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);  // takes the one place
        EXPECT_EQ(::connect(filler_, reinterpret_cast<sockaddr*>(&a), len), 0);
    }
    ~full_listener() {
        ::close(filler_);
        ::close(fd_);
    }
    std::uint16_t port() const { return port_; }
    // Whether a connection to the port is in SYN_SENT (state 02 in /proc/net/tcp).
    bool connect_in_progress() const {
        std::ifstream tcp("/proc/net/tcp");
        char remote[16];
        std::snprintf(remote, sizeof remote, "0100007F:%04X", port_);
        for (std::string line; std::getline(tcp, line);)
            if (line.find(std::string(" ") + remote + " 02 ") != std::string::npos) return true;
        return false;
    }

  private:
    int fd_ = -1, filler_ = -1;
    std::uint16_t port_ = 0;
};

// The stop ends a connect in progress too, long before client.connect_timeout: open()
// returns stopped, with no error.
TEST(ReaderStop, EndsAConnectInProgress) {
    full_listener listener;
    config::client_settings s;
    s.to_host = "127.0.0.1";
    s.to_port = listener.port();
    s.connect_timeout = std::chrono::minutes(10);
    stop_pipe stop;
    client::read_options o;
    o.follow = true;
    o.stop = &stop.flag;
    o.stop_fd = stop.fds[0];
    client::reader r(s, o);
    std::thread stopper([&] {
        if (wait_until([&] { return listener.connect_in_progress(); }, std::chrono::seconds(30)))
            stop.request();
    });
    const auto ec = r.open();
    stopper.join();
    EXPECT_FALSE(ec) << r.last_error();
    EXPECT_TRUE(r.stopped());
    EXPECT_FALSE(r.error()) << r.last_error();
}

}  // namespace
}  // namespace objwire::test
