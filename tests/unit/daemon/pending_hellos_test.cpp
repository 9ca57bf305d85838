// pending_hellos: connections waiting for their hello, capped per address and in all by
// shedding the oldest - what keeps a flood of silent connections from locking honest peers out.
#include "daemon/serve/pending_hellos.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace objwire::daemon {
namespace {

using caps = pending_hellos::caps;

TEST(PendingHellos, AtTheCapPerAddressItsOldestIsShedNotTheNewcomer) {
    pending_hellos p;
    std::vector<pending_hellos::shed> out;
    const auto first = p.accepted("10.0.0.1", {0, 2}, out);
    p.accepted("10.0.0.1", {0, 2}, out);
    EXPECT_TRUE(out.empty());
    p.accepted("10.0.0.2", {0, 2}, out);
    EXPECT_TRUE(out.empty()) << "another address has its own cap";
    const auto third = p.accepted("10.0.0.1", {0, 2}, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].id, first);
    EXPECT_NE(out[0].why.find("2 connections from 10.0.0.1 waiting for their hello"),
              std::string::npos)
        << out[0].why;
    EXPECT_NE(out[0].why.find("(limits.max_pending_hellos_per_address = 2)"), std::string::npos)
        << out[0].why;
    EXPECT_EQ(p.waiting("10.0.0.1"), 2u);
    EXPECT_EQ(p.waiting(), 3u);
    EXPECT_NE(third, first);
}

TEST(PendingHellos, AtTheCapInAllTheOldestOfAllIsShed) {
    pending_hellos p;
    std::vector<pending_hellos::shed> out;
    const auto a = p.accepted("10.0.0.1", {2, 0}, out);
    p.accepted("10.0.0.2", {2, 0}, out);
    p.accepted("10.0.0.3", {2, 0}, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].id, a);
    EXPECT_NE(out[0].why.find("(limits.max_pending_hellos = 2"), std::string::npos) << out[0].why;
    EXPECT_EQ(p.waiting("10.0.0.1"), 0u);
    EXPECT_EQ(p.waiting(), 2u);
}

// An honest client says its hello at once: it no longer counts, whatever follows it.
TEST(PendingHellos, AConnectionThatSaidItsHelloIsNeverShed) {
    pending_hellos p;
    std::vector<pending_hellos::shed> out;
    const auto honest = p.accepted("10.0.0.1", {1, 1}, out);
    p.done(honest);
    for (int i = 0; i < 100; ++i)
        p.accepted("10.0.0.1", {1, 1}, out);
    EXPECT_EQ(out.size(), 99u);
    for (const auto& s : out)
        EXPECT_NE(s.id, honest);
    EXPECT_EQ(p.waiting(), 1u);
}

TEST(PendingHellos, DoneTwiceOrForAShedConnectionIsHarmless) {
    pending_hellos p;
    std::vector<pending_hellos::shed> out;
    const auto a = p.accepted("10.0.0.1", {0, 1}, out);
    p.accepted("10.0.0.1", {0, 1}, out);
    ASSERT_EQ(out.size(), 1u);
    p.done(a);  // the shed connection ends
    p.done(a);
    EXPECT_EQ(p.waiting(), 1u);
}

TEST(PendingHellos, NoCapsShedNothing) {
    pending_hellos p;
    std::vector<pending_hellos::shed> out;
    for (int i = 0; i < 10000; ++i)
        p.accepted("10.0.0.1", {0, 0}, out);
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(p.waiting(), 10000u);
}

// Silent connections alone never take more than half the descriptors.
TEST(PendingHellos, TheCapInAllIsAtMostHalfTheDescriptorLimit) {
    EXPECT_EQ(pending_hellos::cap_in_all(256, std::nullopt), 256u);
    EXPECT_EQ(pending_hellos::cap_in_all(256, 100000), 256u);
    EXPECT_EQ(pending_hellos::cap_in_all(256, 512), 256u);
    EXPECT_EQ(pending_hellos::cap_in_all(256, 300), 150u);
    EXPECT_EQ(pending_hellos::cap_in_all(256, 1), 1u) << "at least one";
}

// Out of descriptors, the oldest of all is shed whatever its address, and counts no more.
TEST(PendingHellos, ShedOldestTakesTheOldestOfAll) {
    pending_hellos p;
    std::vector<pending_hellos::shed> out;
    EXPECT_FALSE(p.shed_oldest("out of file descriptors").has_value()) << "none waits";
    const auto a = p.accepted("10.0.0.1", {}, out);
    const auto b = p.accepted("10.0.0.2", {}, out);
    p.accepted("10.0.0.1", {}, out);
    p.done(a);  // said its hello: no longer the oldest waiting
    const auto s = p.shed_oldest("out of file descriptors");
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->id, b);
    EXPECT_EQ(s->why, "out of file descriptors");
    EXPECT_EQ(p.waiting(), 1u);
    EXPECT_EQ(p.waiting("10.0.0.2"), 0u);
}

}  // namespace
}  // namespace objwire::daemon
