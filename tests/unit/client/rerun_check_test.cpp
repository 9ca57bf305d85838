// The rerun rule (client/lib/rerun_check.hpp): the stored messages of a rerun checked against
// the stored input digest and dropped, the digest the stream goes on with, and an input that
// differs or ends early.
#include "client/lib/rerun_check.hpp"

#include <gtest/gtest.h>

#include "proto/input_digest.hpp"

namespace objwire::client {
namespace {

// The input digest of objects with these object digests.
std::uint64_t digest_of(std::initializer_list<std::uint64_t> objects) {
    std::uint64_t d = empty_input_digest;
    for (auto o : objects)
        d = chain_input_digest(d, o);
    return d;
}

TEST(RerunCheck, WithoutSkipStoredTheStreamGoesOnFromTheStoredDigest) {
    rerun_check r;
    EXPECT_EQ(r.learn(3, 77), std::optional<std::uint64_t>(77));
    EXPECT_FALSE(r.skipping());
    EXPECT_EQ(r.stored_objects(), 3u);
    EXPECT_EQ(r.learn(0, 0), std::optional<std::uint64_t>(empty_input_digest));
    EXPECT_EQ(r.learn(3, 0), std::optional<std::uint64_t>(0));  // stored without: unknown
    EXPECT_FALSE(r.input_ended());
}

TEST(RerunCheck, TheSameInputSkipsTheStoredAndGoesOn) {
    rerun_check r;
    r.skip_stored(true);
    EXPECT_EQ(r.learn(3, digest_of({11, 12, 13})), std::nullopt);
    ASSERT_TRUE(r.skipping());
    EXPECT_EQ(r.skip(11), rerun_check::outcome::more);
    EXPECT_EQ(r.skip(12), rerun_check::outcome::more);
    EXPECT_EQ(r.skip(13), rerun_check::outcome::last);
    EXPECT_FALSE(r.skipping());
    EXPECT_EQ(r.skipped(), 3u);
    EXPECT_EQ(r.goes_on_with(), digest_of({11, 12, 13}));
    EXPECT_FALSE(r.input_ended());
    EXPECT_FALSE(r.mismatch());
}

TEST(RerunCheck, AnotherInputIsAMismatchOnce) {
    rerun_check r;
    r.skip_stored(true);
    r.learn(2, digest_of({11, 12}));
    EXPECT_EQ(r.skip(11), rerun_check::outcome::more);
    EXPECT_EQ(r.skip(99), rerun_check::outcome::differs);
    EXPECT_TRUE(r.mismatch());
    const auto text = r.mismatch_text("app");
    EXPECT_NE(text.find("sender id 'app'"), std::string::npos) << text;
    EXPECT_NE(text.find("first 2 objects differ"), std::string::npos) << text;
    EXPECT_EQ(r.skip(12), rerun_check::outcome::mismatched);
    EXPECT_FALSE(r.input_ended());  // already reported
}

TEST(RerunCheck, WithoutAStoredDigestTheCountAloneIsChecked) {
    rerun_check r;
    r.skip_stored(true);
    r.learn(1, 0);
    EXPECT_EQ(r.skip(5), rerun_check::outcome::last);
    EXPECT_EQ(r.goes_on_with(), 0u);  // unknown stays unknown
}

TEST(RerunCheck, AnInputShorterThanTheStoredIsAnother) {
    rerun_check r;
    r.skip_stored(true);
    r.learn(3, digest_of({1, 2, 3}));
    r.skip(1);
    ASSERT_TRUE(r.input_ended());
    EXPECT_TRUE(r.mismatch());
    const auto text = r.short_input_text("app");
    EXPECT_NE(text.find("has 1 objects, fewer than the 3"), std::string::npos) << text;
    EXPECT_FALSE(r.input_ended());
}

}  // namespace
}  // namespace objwire::client
