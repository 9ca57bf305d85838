// The credit rule: how many bytes one sender connection may have read and not yet durable
// while `senders` connections stream - an equal share of limits.max_buffered_bytes, never
// less than credit_floor nor more than the whole. The welcome announces it as the credit
// (docs/PROTOCOL.md section 1.4), and objwired stops reading a connection past its share of
// the moment (and reads no more than the share at once), so among 1,000 senders none can have
// its whole stream stored before the others get a turn: each waits for its bytes to be
// durable after a share, and the journal's syncs serve them in rounds (docs/DECISIONS.md,
// "Many senders share the credit"). One sender alone keeps the whole. No I/O.
#pragma once

#include <algorithm>
#include <cstdint>

namespace objwire::daemon {

// Below it a round trip per 64 KiB would cost more than it shares: objects/s fall.
inline constexpr std::uint64_t credit_floor = 64 * 1024;

constexpr std::uint64_t credit_share(std::uint64_t budget, std::int64_t senders) {
    if (senders <= 1) return budget;
    const std::uint64_t equal = budget / static_cast<std::uint64_t>(senders);
    return std::min(budget, std::max(equal, credit_floor));
}

}  // namespace objwire::daemon
