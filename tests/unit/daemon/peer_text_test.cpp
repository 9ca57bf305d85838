// What a peer chose and the daemon logs (log_text), and the durable owners of sender ids
// (fence_log's record format): each checked without a daemon.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "daemon/serve/fence_log.hpp"
#include "daemon/serve/log_text.hpp"

namespace objwire::daemon {
namespace {

TEST(LogText, ANewlineCannotStartAForgedLine) {
    const std::string forged = "me\n[2026-01-01 00:00:00.000] [info] forged line";
    const auto safe = log_text(forged);
    EXPECT_EQ(safe.find('\n'), std::string::npos);
    EXPECT_EQ(safe, "me\\x0a[2026-01-01 00:00:00.000] [info] forged line");
    EXPECT_EQ(log_text("a\rb\x1b[2Jc\\d\x7f"), "a\\x0db\\x1b[2Jc\\x5cd\\x7f");
    EXPECT_EQ(log_text("plain-id_1.2 \xc3\xa9"), "plain-id_1.2 \xc3\xa9");
}

stream_fence fence_with(std::uint8_t b) {
    stream_fence f;
    f.fill(b);
    return f;
}

std::vector<std::pair<std::string, stream_fence>> parse_all(const byte_buffer& b,
                                                            std::size_t& used) {
    std::vector<std::pair<std::string, stream_fence>> out;
    used = parse_fence_records(b.span(), [&](std::string_view id, const stream_fence& f) {
        out.emplace_back(std::string(id), f);
    });
    return out;
}

TEST(FenceLog, RecordsReadBackInOrderAndATornTailIsDropped) {
    byte_buffer b;
    encode_fence_record(b, "S", fence_with(1));
    encode_fence_record(b, std::string(4096, 'x'), fence_with(2));
    const std::size_t whole = b.size();
    encode_fence_record(b, "T", fence_with(3));
    std::size_t used = 0;
    auto all = parse_all(b, used);
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[1].first.size(), 4096u);
    EXPECT_EQ(all[2].second, fence_with(3));
    EXPECT_EQ(used, b.size());
    // Every cut inside the last record keeps exactly the two before it.
    for (std::size_t cut = whole; cut < b.size(); ++cut) {
        byte_buffer torn;
        torn.append(b.span().first(cut));
        EXPECT_EQ(parse_all(torn, used).size(), 2u) << cut;
        EXPECT_EQ(used, whole);
    }
    // A flipped byte in the second record ends the walk there.
    byte_buffer damaged;
    damaged.append(b.span());
    damaged.data()[whole - 7] ^= 1;
    EXPECT_EQ(parse_all(damaged, used).size(), 1u);
}

TEST(FenceLog, RecallGivesTheNewestOwnerAndCompactsTheFile) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("fence_log_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    fence_log log(dir / "stream_fences");
    ASSERT_FALSE(log.append("S", fence_with(1)));
    ASSERT_FALSE(log.append("S", fence_with(2)));
    ASSERT_FALSE(log.append("T", fence_with(3)));
    sender_registry senders;
    senders.remember("S", 5, nullptr);
    ASSERT_FALSE(log.recall(senders));
    // The owner recalled is the newest: its token resumes, the older one is fenced.
    const auto noop = [] {};
    EXPECT_EQ(senders.try_claim("S", 1, fence_with(1), fence_with(9), noop, noop),
              sender_registry::claim::fenced);
    EXPECT_EQ(senders.try_claim("S", 1, fence_with(2), fence_with(9), noop, noop),
              sender_registry::claim::claimed);
    byte_buffer one;
    encode_fence_record(one, "S", fence_with(2));
    encode_fence_record(one, "T", fence_with(3));
    EXPECT_EQ(std::filesystem::file_size(log.file()), one.size());
    std::filesystem::remove_all(dir);
}

// Only a new id's first owner may skip the wait for the disk: any other change of owner is
// what a restart must still know.
TEST(FenceLog, AClaimSaysWhetherItGaveANewIdItsFirstOwner) {
    using change = sender_registry::fence_change;
    sender_registry senders;
    senders.remember("stored", 3, nullptr);  // objects stored before fences were kept
    const auto noop = [] {};
    auto claim = [&](const std::string& id, std::uint64_t conn,
                     const std::optional<stream_fence>& resume, const stream_fence& fresh) {
        auto c = change::same;
        EXPECT_EQ(senders.try_claim(id, conn, resume, fresh, noop, noop, &c),
                  sender_registry::claim::claimed);
        senders.release(id, conn);
        return c;
    };
    EXPECT_EQ(claim("new", 1, std::nullopt, fence_with(1)), change::new_id);
    EXPECT_EQ(claim("new", 2, fence_with(1), fence_with(1)), change::same);
    EXPECT_EQ(claim("new", 3, std::nullopt, fence_with(2)), change::replaced);
    EXPECT_EQ(claim("stored", 4, std::nullopt, fence_with(3)), change::replaced);
    // A resume of an id nobody owns yet gives it its first owner, as a new stream does.
    EXPECT_EQ(claim("forgotten", 5, fence_with(4), fence_with(4)), change::new_id);
}

TEST(FenceLog, ARecordLeftToLaterSyncsReadsBackWithTheSyncedOnes) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("fence_log_later_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    fence_log log(dir / "stream_fences");
    ASSERT_FALSE(log.append("new", fence_with(1), fence_log::durability::with_later_syncs));
    ASSERT_FALSE(log.append("S", fence_with(2)));
    sender_registry senders;
    ASSERT_FALSE(log.recall(senders));
    const auto noop = [] {};
    EXPECT_EQ(senders.try_claim("new", 1, fence_with(9), fence_with(9), noop, noop),
              sender_registry::claim::fenced);
    EXPECT_EQ(senders.try_claim("new", 1, fence_with(1), fence_with(9), noop, noop),
              sender_registry::claim::claimed);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace objwire::daemon
