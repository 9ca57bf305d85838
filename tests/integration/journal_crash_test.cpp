// objwired killed with SIGKILL while a client streams into its journal, and restarted on the
// same data directory, three times, under each fsync policy: every object the client saw
// acknowledged is in the journal, exactly once and in order, and the journal reads cleanly.
// A restarted daemon syncs what it recovered before it reads its sender index and listens
// (docs/JOURNAL.md 4: nothing a killed daemon left unsynced is announced as a resume point).
// Each round's client is a new stream (it does not resume the last round's), so each round
// sends objects of its own and what was stored but not acknowledged before a kill stays; nothing is
// duplicated.
#include <gtest/gtest.h>

#include <iostream>

#include <objwire/connection.hpp>
#include "config/settings.hpp"
#include "daemon/store/journal_reader.hpp"
#include "resume_support.hpp"

namespace objwire::test {
namespace {

message tagged(std::int64_t round, std::int64_t i) {
    static const auto type = make_record_type("Tagged", {"round", "i", "pad"});
    return {make_record(type, {round, i, std::string(static_cast<std::size_t>(40 + i % 50), 'x')}),
            {}};
}

class JournalCrash : public ::testing::TestWithParam<std::string> {
  protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("objwire-crash-" + std::to_string(::getpid()) + "-" + GetParam());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::filesystem::path dir_;
};

// Recovery's sync comes before the sender index is read and before the daemon listens.
void expect_recovery_synced_first(const std::string& log) {
    const auto synced = log.find("segment files synced");
    ASSERT_NE(synced, std::string::npos) << log;
    EXPECT_LT(synced, log.find("journal: sender index")) << log;
    EXPECT_LT(synced, log.find("listening on")) << log;
}

TEST_P(JournalCrash, AcknowledgedObjectsSurviveSigkill) {
    const auto data = dir_ / "data";
    const std::vector<std::string> policy_env = {"OBJWIRE_JOURNAL_FSYNC=" + GetParam()};
    const bool syncing = GetParam() != "never";
    constexpr int rounds = 3;
    const std::uint64_t kill_after[rounds] = {2'000, 9'000, 500};
    std::vector<std::uint64_t> acked(rounds + 1, 0);
    for (int round = 0; round < rounds; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        child_objwired d(data, dir_ / ("log-" + std::to_string(round)), 0, policy_env);
        ASSERT_TRUE(d.start()) << d.log();
        if (round > 0 && syncing) expect_recovery_synced_first(d.log());
        config::client_settings cs;
        cs.to_port = d.port();
        // The daemon is killed under this client: it must not spend resume.retry_for trying
        // to reach it again before the next round starts one.
        cs.resume_retry_for = std::chrono::milliseconds(0);
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
        child_objwired d(data, dir_ / "log-final", 0, policy_env);
        ASSERT_TRUE(d.start()) << d.log();
        if (syncing) expect_recovery_synced_first(d.log());
        config::client_settings cs;
        cs.to_port = d.port();
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

INSTANTIATE_TEST_SUITE_P(EveryFsyncPolicy, JournalCrash,
                         ::testing::Values("always", "interval", "never"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace objwire::test
