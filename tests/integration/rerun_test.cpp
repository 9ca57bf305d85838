// Reruns through the library (docs/PROTOCOL.md 1.1, "Reruns"): a connection whose messages are
// its sender id's whole stream (skip_stored) skips what the id stored, after checking its digest,
// so an interrupted run followed by a rerun stores every object once; another input is refused
// before any of it is sent. The CLI's end-to-end test is rerun_cli_test.sh.
#include <gtest/gtest.h>

#include <random>

#include <objwire/connection.hpp>
#include "daemon_fixture.hpp"
#include "resume_support.hpp"

namespace objwire::test {
namespace {

class Rerun : public daemon_fixture {
  protected:
    // Sends the first `count` of `n` events (seed 31) under `id`; an interrupted run stops
    // after `count` without close() (what a killed client leaves), a whole one closes.
    std::error_code run(const std::string& id, std::uint64_t n, std::uint64_t count,
                        client::connection*& out, std::unique_ptr<client::connection>& holder,
                        const char* workload = "events") {
        auto cs = client_settings();
        cs.sender_id = id;
        holder = std::make_unique<client::connection>(cs, "rerun");
        out = holder.get();
        out->skip_stored(true);
        if (auto ec = out->open()) return ec;
        auto w = workloads::make(workload, 31);
        message m;
        for (std::uint64_t i = 0; i < std::min(n, count); ++i) {
            w->next(m);
            if (auto ec = out->send(m)) return ec;
        }
        if (count < n) return out->flush();
        return out->close();
    }
};

TEST_F(Rerun, AnInterruptedRunThenTheSameInputStoresEachObjectOnce) {
    start();
    const std::uint64_t n = 20'000;
    std::mt19937_64 rng(std::random_device{}());
    const std::uint64_t cut = n / 10 + rng() % (n / 2);
    client::connection* c = nullptr;
    std::unique_ptr<client::connection> holder;
    ASSERT_FALSE(run("lib", n, cut, c, holder)) << c->last_error();
    holder.reset();  // gone without close(): its last frames may or may not be stored
    ASSERT_FALSE(run("lib", n, n, c, holder)) << c->last_error();
    EXPECT_GT(c->stored_objects(), 0u);
    EXPECT_LE(c->stored_objects(), cut);
    EXPECT_EQ(c->skipped_objects(), c->stored_objects());
    EXPECT_EQ(c->stats().objects_acked, n - c->stored_objects());
    // Once more: all stored, nothing sent.
    ASSERT_FALSE(run("lib", n, n, c, holder)) << c->last_error();
    EXPECT_EQ(c->stored_objects(), n);
    EXPECT_EQ(c->stats().objects_sent, 0u);
    holder.reset();
    stop();
    EXPECT_EQ(expect_exact_streams(dir_, {{"lib", 31}}, {{"lib", n}}), n);
}

TEST_F(Rerun, AnotherInputUnderAUsedIdIsRefusedAndNothingIsStored) {
    start();
    client::connection* c = nullptr;
    std::unique_ptr<client::connection> holder;
    ASSERT_FALSE(run("used", 5000, 5000, c, holder)) << c->last_error();
    // Other objects: refused at the 5,000th, before anything of them was sent.
    auto ec = run("used", 8000, 8000, c, holder, "person");
    EXPECT_EQ(ec, client::client_errc::input_mismatch);
    EXPECT_NE(c->last_error().find("is not the one sender id 'used' stored"), std::string::npos)
        << c->last_error();
    EXPECT_EQ(c->close(), client::client_errc::input_mismatch);
    EXPECT_EQ(c->stats().objects_sent, 0u);
    // A shorter input: refused at close().
    ec = run("used", 3000, 3000, c, holder);
    EXPECT_EQ(ec, client::client_errc::input_mismatch);
    EXPECT_NE(c->last_error().find("fewer than the 5000"), std::string::npos) << c->last_error();
    // The input grown by appending: only the new objects go.
    ASSERT_FALSE(run("used", 6000, 6000, c, holder)) << c->last_error();
    EXPECT_EQ(c->stats().objects_sent, 1000u);
    holder.reset();
    stop();
    EXPECT_EQ(expect_exact_streams(dir_, {{"used", 31}}, {{"used", 6000}}), 6000u);
}

}  // namespace
}  // namespace objwire::test
