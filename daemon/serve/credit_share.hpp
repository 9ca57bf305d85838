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

// When the sender connections are told their share without waiting for an ack of theirs: an
// ack tells a streaming sender its new share, but a sender welcomed before the others came
// may write all its credit before its first ack. So when senders join, every sender
// connection is told (an ack of what it already had acknowledged, docs/PROTOCOL.md 1.4) -
// once the share has fallen to three quarters of the one last told, so that 1,000 senders
// joining one by one wake the others 20 times, not 999 each, and none holds more than 4/3 of
// its share. A share that grows (senders left) waits for the next ack: a larger credit costs
// no one while it waits. No I/O.
class credit_notices {
  public:
    // The senders streaming are now `senders`: true when every sender connection is to be told.
    bool on_senders(std::uint64_t budget, std::int64_t senders) {
        const std::uint64_t share = credit_share(budget, senders);
        if (told_ == 0 || share >= told_) {
            told_ = share;
            return false;
        }
        if (share > told_ / 4 * 3) return false;
        told_ = share;
        return true;
    }

  private:
    std::uint64_t told_ = 0;  // the share last told (or the largest since); 0: none yet
};

}  // namespace objwire::daemon
