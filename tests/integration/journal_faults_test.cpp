// The journal's fault promises through a real objwired (docs/JOURNAL.md 4): a second daemon on
// a locked data directory refuses to start and the first keeps every object; a damaged block
// reaches `objwire read` as a gap, with every object around it served.
#include <gtest/gtest.h>

#include <fstream>

#include <objwire/connection.hpp>
#include <objwire/reader.hpp>
#include "daemon/serve/metrics_text.hpp"
#include "daemon/store/journal.hpp"
#include "daemon/store/journal_segments.hpp"
#include "daemon_fixture.hpp"
#include "proto/journal_block.hpp"

namespace objwire::test {
namespace {

message numbered(std::int64_t i) {
    static const auto type = make_record_type("Numbered", {"i", "text"});
    return {make_record(type, {i, "object number " + std::to_string(i)}), {}};
}

class JournalFaults : public daemon_fixture {};

TEST_F(JournalFaults, ASecondDaemonOnTheDirectoryRefusesAndTheFirstKeepsEverything) {
    start();
    asio::io_context io;
    auto second_settings = settings_;
    daemon::server second(io, second_settings, daemon::standard_roles());
    const auto ec = second.start();
    EXPECT_EQ(ec, daemon::journal_open_errc::locked);
    EXPECT_NE(
        log_text().find("the data directory " + dir_.string() +
                        " is in use by another objwired (pid " + std::to_string(::getpid()) + ")"),
        std::string::npos)
        << log_text();
    client::connection c(client_settings(), "first");
    ASSERT_FALSE(c.open()) << c.last_error();
    for (std::int64_t i = 0; i < 2'000; ++i)
        ASSERT_FALSE(c.send(numbered(i))) << c.last_error();
    ASSERT_FALSE(c.close()) << c.last_error();
    EXPECT_EQ(c.stats().objects_acked, 2'000u);
    stop();
    const auto all = stored();
    ASSERT_EQ(all.size(), 2'000u);
    for (std::int64_t i = 0; i < 2'000; ++i)
        ASSERT_EQ(all[static_cast<std::size_t>(i)], numbered(i));
}

// Four blocks of ten objects; a byte of the second block's payload flipped. Recovery keeps the
// damaged bytes in place, and a reader gets 0-9, a gap 10..19, then 20-39.
TEST_F(JournalFaults, ADamagedBlockIsAGapForObjwireRead) {
    std::vector<std::size_t> block_at;
    {
        daemon::journal_options o;
        o.dir = dir_;
        o.fsync = daemon::fsync_policy::never;
        o.segment_bytes = 4096;
        std::error_code ec;
        auto j = daemon::journal::open(o, ec);
        ASSERT_TRUE(j) << ec.message();
        std::size_t at = 0;
        for (int b = 0; b < 4; ++b) {
            journal_block_writer w("writer");
            for (int i = 0; i < 10; ++i)
                ASSERT_FALSE(w.add(numbered(b * 10 + i)));
            auto block = w.finish(1, 1, 0);
            block_at.push_back(at);
            at += block.size();
            j->append(
                block, [](std::error_code) {}, ec);
            ASSERT_FALSE(ec);
        }
    }
    const auto first = dir_ / daemon::segment_file_name(0);
    {
        ASSERT_GT(std::filesystem::file_size(first), block_at[2]);
        std::fstream f(first, std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(static_cast<std::streamoff>(block_at[1] + 100));
        char c = 0;
        f.get(c);
        f.seekp(static_cast<std::streamoff>(block_at[1] + 100));
        f.put(static_cast<char>(c ^ 0x10));
    }
    start();
    client::read_options o;
    client::reader r(client_settings(), o);
    ASSERT_FALSE(r.open()) << r.last_error();
    std::vector<std::uint64_t> offsets;
    client::stored_message m;
    while (r.next(m)) {
        EXPECT_EQ(m.value, numbered(static_cast<std::int64_t>(m.offset)));
        offsets.push_back(m.offset);
    }
    EXPECT_FALSE(r.error()) << r.last_error();
    ASSERT_EQ(r.gaps().size(), 1u);
    EXPECT_EQ(r.gaps()[0].first, 10u);
    EXPECT_EQ(r.gaps()[0].end, 20u);
    ASSERT_EQ(offsets.size(), 30u);
    EXPECT_EQ(offsets[9], 9u);
    EXPECT_EQ(offsets[10], 20u);
    EXPECT_NE(log_text().find("offsets 10 to 19 lost"), std::string::npos) << log_text();
    const auto metrics = daemon::render_prometheus(server());
    EXPECT_NE(metrics.find("\nobjwire_journal_gaps 1\n"), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("\nobjwire_journal_lost_objects 10\n"), std::string::npos);
    EXPECT_NE(metrics.find("\nobjwire_journal_gaps_served_total 1\n"), std::string::npos);
}

}  // namespace
}  // namespace objwire::test
