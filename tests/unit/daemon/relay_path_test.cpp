// Which relayed streams a daemon takes: not one that already passed it (a loop), not one that
// passed more relays than limits.max_hops; each refusal names the path.
#include "daemon/sinks/relay_path.hpp"

#include <gtest/gtest.h>

namespace objwire::daemon {
namespace {

TEST(RelayPath, AStreamStraightFromItsClientIsTaken) {
    EXPECT_EQ(relay_path_refusal({}, "", 8), "");
    EXPECT_EQ(relay_path_refusal({}, "a:1#00000001", 1), "");
}

TEST(RelayPath, ARelayFindingItselfInThePathRefusesTheLoop) {
    const std::vector<std::string> path{"a:1#0000000a", "b:2#0000000b"};
    EXPECT_EQ(relay_path_refusal(path, "a:1#0000000a", 8),
              "relay loop: the stream already passed this relay (a:1#0000000a); its path: "
              "a:1#0000000a -> b:2#0000000b -> a:1#0000000a");
    EXPECT_EQ(relay_path_refusal(path, "c:3#0000000c", 8), "");
    // Another start of the same relay address is another relay.
    EXPECT_EQ(relay_path_refusal(path, "a:1#000000ff", 8), "");
}

TEST(RelayPath, APathLongerThanMaxHopsIsRefused) {
    const std::vector<std::string> two{"a", "b"};
    EXPECT_EQ(relay_path_refusal(two, "", 2), "");
    EXPECT_EQ(relay_path_refusal(two, "", 1),
              "the stream passed 2 relays (a -> b), the most this daemon takes "
              "(limits.max_hops = 1)");
    // A loop is named as such even when the path is also too long.
    EXPECT_EQ(relay_path_refusal(two, "a", 1).rfind("relay loop", 0), 0u);
}

TEST(RelayPath, RelayIdsAreTheAddressAndATagDrawnAtStart) {
    const auto first = make_relay_id("127.0.0.1:7878");
    EXPECT_EQ(first.rfind("127.0.0.1:7878#", 0), 0u);
    EXPECT_EQ(first.size(), std::string("127.0.0.1:7878#").size() + 8);
    std::size_t distinct = 0;
    for (int i = 0; i < 8; ++i)
        distinct += make_relay_id("127.0.0.1:7878") != first;
    EXPECT_GE(distinct, 7u);
}

}  // namespace
}  // namespace objwire::daemon
