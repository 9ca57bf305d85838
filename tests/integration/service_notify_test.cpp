// objwired under a service manager: started with NOTIFY_SOCKET pointing at a datagram socket
// this test owns, it must say READY=1 once listening, RELOADING=1 (with MONOTONIC_USEC) and
// READY=1 again around a SIGHUP reload, and STOPPING=1 on SIGTERM, then exit 0.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/wait_until.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;

class notify_socket {
  public:
    explicit notify_socket(const fs::path& path) : path_(path) {
        fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
        fs::remove(path);
        bound_ = ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    }
    ~notify_socket() {
        ::close(fd_);
        fs::remove(path_);
    }
    bool bound() const { return bound_; }
    // The next datagram, or "" when none comes within `timeout`.
    std::string next(std::chrono::milliseconds timeout = std::chrono::seconds(15)) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(timeout.count())) != 1) return "";
        char buf[4096];
        const auto n = ::recv(fd_, buf, sizeof buf, 0);
        return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
    }
    // Datagrams until one contains `what` (bounded in count and each in time).
    std::string until(const std::string& what) {
        for (int i = 0; i < 20; ++i) {
            auto m = next();
            if (m.empty() || m.find(what) != std::string::npos) return m;
        }
        return "";
    }

  private:
    fs::path path_;
    int fd_ = -1;
    bool bound_ = false;
};

void write_file(const fs::path& p, const std::string& text) {
    std::ofstream(p) << text;
}

std::string read_file(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string config_text(const fs::path& data, const std::string& log_level, int max_depth,
                        const std::string& listen) {
    return "[server]\nlisten = \"" + listen + "\"\ndata_dir = \"" + data.string() +
           "\"\nlog_level = \"" + log_level +
           "\"\n[limits]\nmax_depth = " + std::to_string(max_depth) +
           "\n[metrics]\nlisten = \"\"\n";
}

TEST(ServiceNotify, ReadyReloadingStoppingThroughNotifySocket) {
    const fs::path dir =
        fs::temp_directory_path() / ("objwire-notify-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    notify_socket sock(dir / "notify.sock");
    ASSERT_TRUE(sock.bound());
    const fs::path config = dir / "objwired.toml";
    write_file(config, config_text(dir / "data", "info", 64, "127.0.0.1:0"));

    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
        if (!std::string_view(*e).starts_with("NOTIFY_SOCKET=")) env.emplace_back(*e);
    env.push_back("NOTIFY_SOCKET=" + (dir / "notify.sock").string());
    std::vector<char*> envp;
    for (auto& e : env)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string path = OBJWIRED_PATH, flag = "--config", file = config.string();
    char* argv[] = {path.data(), flag.data(), file.data(), nullptr};
    const std::string log = (dir / "log").string();

    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ::dup2(fd, 2);
        ::execve(argv[0], argv, envp.data());
        ::_exit(127);
    }

    const auto ready = sock.until("READY=1");
    EXPECT_NE(ready.find("READY=1"), std::string::npos) << read_file(log);
    EXPECT_NE(ready.find("STATUS=listening on 127.0.0.1:"), std::string::npos) << ready;
    // Listening when it says so.
    EXPECT_NE(read_file(log).find("listening on 127.0.0.1:"), std::string::npos);

    // A live key, and one that needs a restart.
    write_file(config, config_text(dir / "data", "debug", 32, "127.0.0.1:1"));
    ::kill(pid, SIGHUP);
    const auto reloading = sock.next();
    EXPECT_NE(reloading.find("RELOADING=1"), std::string::npos) << reloading;
    EXPECT_NE(reloading.find("MONOTONIC_USEC="), std::string::npos) << reloading;
    const auto reloaded = sock.next();
    EXPECT_NE(reloaded.find("READY=1"), std::string::npos) << reloaded;
    // Still says where it listens: `systemctl status` shows it after a reload too.
    EXPECT_NE(reloaded.find("STATUS=listening on 127.0.0.1:"), std::string::npos) << reloaded;

    ::kill(pid, SIGTERM);
    const auto stopping = sock.next();
    EXPECT_NE(stopping.find("STOPPING=1"), std::string::npos) << stopping;
    int status = 0;
    pid_t done = 0;
    objwire::test::wait_until([&] { return (done = ::waitpid(pid, &status, WNOHANG)) != 0; },
                              std::chrono::seconds(30));
    if (done == 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        FAIL() << "objwired did not exit on SIGTERM";
    }
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);

    const auto text = read_file(log);
    EXPECT_NE(text.find("reload: server.log_level = \"debug\" (was \"info\")"), std::string::npos)
        << text;
    EXPECT_NE(text.find("reload: limits.max_depth = 32 (was 64)"), std::string::npos) << text;
    EXPECT_NE(text.find("reload: server.listen changed"), std::string::npos) << text;
    EXPECT_NE(text.find("needs a restart: server.listen"), std::string::npos) << text;
    fs::remove_all(dir);
}

}  // namespace
