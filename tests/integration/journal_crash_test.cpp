// objwired killed with SIGKILL while a client streams into its journal with fsync always, and
// restarted on the same data directory, three times: every object the client saw
// acknowledged is in the journal, exactly once and in order, and the journal reads cleanly.
// Clients do not resume yet (issue 5, resume), so each round sends objects of its own and
// what was stored but not acknowledged before a kill stays; nothing is duplicated.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>

#include "client/connection.hpp"
#include "daemon/journal_reader.hpp"

extern char** environ;

namespace objwire::test {
namespace {

// objwired as a child process with its log in a file.
class child_daemon {
  public:
    child_daemon(const std::filesystem::path& data, const std::filesystem::path& log) : log_(log) {
        std::vector<std::string> args = {OBJWIRED_PATH, "--listen", "127.0.0.1:0", "--data-dir",
                                         data.string()};
        std::vector<char*> argv;
        for (auto& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        std::vector<std::string> env_text = {"OBJWIRE_JOURNAL_FSYNC=always"};
        for (char** e = environ; *e; ++e)
            if (std::string_view(*e).rfind("OBJWIRE_", 0) != 0) env_text.emplace_back(*e);
        std::vector<char*> envp;
        for (auto& e : env_text)
            envp.push_back(e.data());
        envp.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int rc = posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&fa);
        if (rc != 0) pid_ = -1;
    }
    ~child_daemon() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }

    // The port it listens on, once its log says so (bounded wait), or 0.
    std::uint16_t wait_for_port() {
        const std::regex listening("listening on 127\\.0\\.0\\.1:([0-9]+)");
        for (int i = 0; i < 1000 && pid_ > 0; ++i) {
            std::smatch m;
            const auto text = log();
            if (std::regex_search(text, m, listening))
                return static_cast<std::uint16_t>(std::stoi(m[1]));
            if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
                pid_ = -1;
                return 0;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return 0;
    }
    // Sends `sig` and waits for the process; returns its wait status.
    int signal_and_wait(int sig) {
        int status = 0;
        ::kill(pid_, sig);
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
        return status;
    }
    std::string log() const {
        std::ifstream in(log_);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }

  private:
    std::filesystem::path log_;
    pid_t pid_ = -1;
};

message tagged(std::int64_t round, std::int64_t i) {
    static const auto type = make_record_type("Tagged", {"round", "i", "pad"});
    return {make_record(type, {round, i, std::string(static_cast<std::size_t>(40 + i % 50), 'x')}),
            {}};
}

class JournalCrash : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("objwire-crash-" + std::to_string(::getpid()));
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::filesystem::path dir_;
};

TEST_F(JournalCrash, AcknowledgedObjectsSurviveSigkill) {
    const auto data = dir_ / "data";
    constexpr int rounds = 3;
    const std::uint64_t kill_after[rounds] = {2'000, 9'000, 500};
    std::vector<std::uint64_t> acked(rounds + 1, 0);
    for (int round = 0; round < rounds; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        child_daemon d(data, dir_ / ("log-" + std::to_string(round)));
        const auto port = d.wait_for_port();
        ASSERT_NE(port, 0) << d.log();
        config::client_settings cs;
        cs.to_port = port;
        client::connection c(cs, "crash-test");
        ASSERT_FALSE(c.open()) << c.last_error();
        bool killed = false;
        for (std::int64_t i = 0; i < 1'000'000 && !killed; ++i) {
            if (c.send(tagged(round, i))) break;
            if (c.stats().objects_acked >= kill_after[round]) {
                const int status = d.signal_and_wait(SIGKILL);
                EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
                killed = true;
            }
        }
        ASSERT_TRUE(killed) << "never reached " << kill_after[round] << " acks: " << c.last_error();
        acked[round] = c.stats().objects_acked;
    }
    // A last daemon recovers the journal, takes a final round completely and stops cleanly.
    {
        child_daemon d(data, dir_ / "log-final");
        const auto port = d.wait_for_port();
        ASSERT_NE(port, 0) << d.log();
        config::client_settings cs;
        cs.to_port = port;
        client::connection c(cs, "crash-test");
        ASSERT_FALSE(c.open()) << c.last_error();
        for (std::int64_t i = 0; i < 1'000; ++i)
            ASSERT_FALSE(c.send(tagged(rounds, i)));
        ASSERT_FALSE(c.close()) << c.last_error();
        acked[rounds] = c.stats().objects_acked;
        EXPECT_EQ(acked[rounds], 1'000u);
        const int status = d.signal_and_wait(SIGTERM);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << d.log();
    }
    // Each round's objects: a gapless prefix of what it sent, at least what was acknowledged.
    daemon::journal_reader r(data);
    std::vector<std::int64_t> next(rounds + 1, 0);
    std::int64_t round = 0;
    message m;
    while (r.next(m)) {
        const auto& rec = m.root.get<record>();
        const auto got_round = rec.fields[0].get<std::int64_t>();
        ASSERT_GE(got_round, round) << "rounds out of order at offset " << r.offset();
        ASSERT_LE(got_round, rounds);
        round = got_round;
        const auto i = next[static_cast<std::size_t>(round)]++;
        ASSERT_EQ(m, tagged(round, i)) << "offset " << r.offset();
    }
    EXPECT_FALSE(r.error()) << r.error_detail();
    EXPECT_EQ(r.tail_bytes(), 0u);
    for (int k = 0; k <= rounds; ++k) {
        std::cout << "round " << k << ": " << acked[k] << " acknowledged, "
                  << next[static_cast<std::size_t>(k)] << " in the journal\n";
        EXPECT_GE(static_cast<std::uint64_t>(next[static_cast<std::size_t>(k)]), acked[k])
            << "round " << k << ": acknowledged objects missing";
    }
    EXPECT_EQ(next[rounds], 1'000);
}

}  // namespace
}  // namespace objwire::test
