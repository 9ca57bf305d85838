// Helpers of the resume tests: objwired as a child process on a fixed port (so clients can
// reconnect to it after a restart), a TCP proxy that cuts every connection through it on
// demand, and a check that a journal holds each sender's stream exactly once and in order.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "client/workloads/workloads.hpp"
#include "config/settings.hpp"
#include "daemon/store/journal_reader.hpp"
#include "tests/support/wait_until.hpp"

extern char** environ;

namespace objwire::test {

// Waits (bounded: 60 s) until `done()`.
template <class F>
bool eventually(F done) {
    return wait_until(done, std::chrono::seconds(60));
}

// A port on 127.0.0.1 that was free a moment ago.
inline std::uint16_t free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

// objwired as a child process on 127.0.0.1:port, its log appended to a file; `env` adds
// OBJWIRE_* variables (the test's own are not passed on). Port 0: the kernel picks a free one
// at each start, and port() says which (read from the log). `program` is objwired unless a
// test runs its fault-injecting build (OBJWIRED_FAULTS_PATH).
class child_objwired {
  public:
    child_objwired(std::filesystem::path data, std::filesystem::path log, std::uint16_t port,
                   std::vector<std::string> env = {}, std::string program = OBJWIRED_PATH)
        : data_(std::move(data)),
          log_(std::move(log)),
          requested_port_(port),
          port_(port),
          env_(std::move(env)),
          program_(std::move(program)) {}
    ~child_objwired() { kill_now(); }

    // Starts it and waits (bounded) until it listens; false if it did not.
    bool start() {
        const auto before = log().size();
        std::vector<std::string> args = {
            program_,     "--listen",     "127.0.0.1:" + std::to_string(requested_port_),
            "--data-dir", data_.string(), "--log-level",
            "info"};
        std::vector<char*> argv;
        for (auto& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        std::vector<std::string> env_text = env_;
        for (char** e = environ; *e; ++e)
            if (std::string_view(*e).rfind("OBJWIRE_", 0) != 0) env_text.emplace_back(*e);
        std::vector<char*> envp;
        for (auto& e : env_text)
            envp.push_back(e.data());
        envp.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        const int rc = posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&fa);
        if (rc != 0) {
            pid_ = -1;
            return false;
        }
        const std::string listening = "listening on 127.0.0.1:";
        bool exited = false;
        const bool listens = wait_until([&] {
            const auto text = log();
            if (const auto at = text.find(listening, before); at != std::string::npos) {
                port_ = static_cast<std::uint16_t>(std::stoi(text.substr(at + listening.size())));
                return true;
            }
            return exited = ::waitpid(pid_, nullptr, WNOHANG) == pid_;
        });
        if (exited) pid_ = -1;
        return listens && !exited;
    }
    // Sends `sig` and waits for the exit; the wait status.
    int signal_and_wait(int sig) {
        int status = 0;
        if (pid_ <= 0) return -1;
        ::kill(pid_, sig);
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
        return status;
    }
    void kill_now() {
        if (pid_ > 0) signal_and_wait(SIGKILL);
    }
    std::string log() const {
        std::ifstream in(log_);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
    std::uint16_t port() const { return port_; }
    pid_t pid() const { return pid_; }
    // Sends `sig` and waits for the exit at most `limit`; the wait status, or nothing if it
    // is still running then (it is killed).
    std::optional<int> signal_and_wait_for(int sig, std::chrono::milliseconds limit) {
        if (pid_ <= 0) return std::nullopt;
        ::kill(pid_, sig);
        int status = 0;
        if (!wait_until([&] { return ::waitpid(pid_, &status, WNOHANG) != 0; }, limit)) {
            kill_now();
            return std::nullopt;
        }
        pid_ = -1;
        return status;
    }

  private:
    std::filesystem::path data_;
    std::filesystem::path log_;
    std::uint16_t requested_port_;
    std::uint16_t port_;
    std::vector<std::string> env_;
    std::string program_;
    pid_t pid_ = -1;
};

// Forwards connections from its own port to 127.0.0.1:target; cut() breaks every connection
// open through it (both sides see their socket shut down, mid-frame as likely as not).
class cutting_proxy {
  public:
    explicit cutting_proxy(std::uint16_t target) : target_(target) {
        listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::listen(listen_fd_, 64);
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        acceptor_ = std::thread([this] { accept_loop(); });
    }
    ~cutting_proxy() {
        stopping_ = true;
        ::shutdown(listen_fd_, SHUT_RDWR);
        acceptor_.join();
        cut();
        std::vector<std::thread> pumps;
        {
            std::lock_guard lock(mutex_);
            pumps.swap(pumps_);
        }
        for (auto& t : pumps)
            t.join();
        ::close(listen_fd_);
    }
    std::uint16_t port() const { return port_; }
    // Breaks every connection open now; returns how many.
    int cut() {
        std::lock_guard lock(mutex_);
        int n = 0;
        for (auto& [client, server] : open_) {
            ::shutdown(client, SHUT_RDWR);
            ::shutdown(server, SHUT_RDWR);
            ++n;
        }
        return n;
    }
    // While on, a connection is closed as soon as it is accepted: a client that resumes at
    // once (linger sees the cut) stays away until the test lets it back.
    void refuse(bool on) { refusing_ = on; }
    int connections() const { return accepted_; }
    // Connections open through it now.
    std::size_t open() {
        std::lock_guard lock(mutex_);
        return open_.size();
    }

  private:
    void accept_loop() {
        while (!stopping_) {
            const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (client < 0) return;
            if (refusing_) {
                ::close(client);
                continue;
            }
            const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            a.sin_port = htons(target_);
            if (::connect(server, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
                ::close(client);
                ::close(server);
                continue;
            }
            ++accepted_;
            std::lock_guard lock(mutex_);
            open_.emplace_back(client, server);
            pumps_.emplace_back([this, client, server] { pump(client, server); });
        }
    }
    // Copies both ways until either side ends or is cut.
    void pump(int a, int b) {
        std::vector<char> buf(64 * 1024);
        pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
        for (bool done = false; !done;) {
            if (::poll(fds, 2, 200) < 0) break;
            for (int i = 0; i < 2 && !done; ++i) {
                if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
                const ssize_t n = ::read(fds[i].fd, buf.data(), buf.size());
                if (n <= 0) {
                    done = true;
                    break;
                }
                for (ssize_t off = 0; off < n && !done;) {
                    const ssize_t w =
                        ::send(fds[1 - i].fd, buf.data() + off, static_cast<std::size_t>(n - off),
                               MSG_NOSIGNAL);  // a cut side must not raise SIGPIPE here
                    if (w <= 0) done = true;
                    off += w;
                }
            }
            if (stopping_) break;
        }
        std::lock_guard lock(mutex_);
        ::shutdown(a, SHUT_RDWR);
        ::shutdown(b, SHUT_RDWR);
        std::erase(open_, std::pair{a, b});
        ::close(a);
        ::close(b);
    }

    std::uint16_t target_;
    std::uint16_t port_ = 0;
    int listen_fd_ = -1;
    std::atomic<bool> stopping_{false};
    std::atomic<bool> refusing_{false};
    std::atomic<int> accepted_{0};
    std::thread acceptor_;
    std::mutex mutex_;
    std::vector<std::pair<int, int>> open_;
    std::vector<std::thread> pumps_;
};

// Reads the whole journal and checks that each sender's objects are exactly `count[id]`
// messages of the events workload with seed `seed[id]`, in order, each once. Returns the
// number of objects read.
inline std::uint64_t expect_exact_streams(const std::filesystem::path& data,
                                          const std::map<std::string, std::uint64_t>& seed,
                                          const std::map<std::string, std::uint64_t>& count) {
    struct expected {
        std::unique_ptr<workloads::workload> w;
        std::uint64_t seen = 0;
        message next;
    };
    std::map<std::string, expected> streams;
    for (const auto& [id, s] : seed)
        streams[id].w = workloads::make("events", s);
    daemon::journal_reader reader(data);
    message m;
    std::uint64_t total = 0;
    std::uint64_t mismatches = 0;
    while (reader.next(m)) {
        ++total;
        auto it = streams.find(reader.sender_id());
        if (it == streams.end()) {
            ADD_FAILURE() << "object from unknown sender '" << reader.sender_id() << "'";
            return total;
        }
        auto& e = it->second;
        e.w->next(e.next);
        if (!(e.next == m) && ++mismatches <= 3)
            ADD_FAILURE() << "sender " << it->first << ": object " << e.seen << " (offset "
                          << reader.offset() << ") is not the one expected (lost or repeated)";
        ++e.seen;
    }
    EXPECT_FALSE(reader.error()) << reader.error_detail();
    for (const auto& [id, n] : count)
        EXPECT_EQ(streams[id].seen, n) << "objects stored for sender " << id;
    EXPECT_EQ(mismatches, 0u);
    return total;
}

}  // namespace objwire::test
