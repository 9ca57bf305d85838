#include "daemon/sinks/nats_reorder.hpp"

namespace objwire::daemon {

bool block_reorder::follows(const sender_state& s, const ordered_block& b) const {
    if (!s.started) return b.first_sequence == 1 && b.first_offset == 0;
    // The next batch: on the same connection (its objects follow), or a new connection's
    // first block (a resumed stream: offsets restart at 0).
    if (b.first_sequence == s.last + 1)
        return b.first_offset == s.next_offset || b.first_offset == 0;
    // The next part of a batch split to fit max_payload: same frames, the next objects.
    return b.first_sequence == s.first && b.last_sequence == s.last &&
           b.first_offset == s.next_offset;
}

void block_reorder::release(sender_state& s, ordered_block&& b, std::vector<ordered_block>& out) {
    if (s.started && b.last_sequence < s.last) ++late_;  // its successors went before it
    if (!s.started || b.last_sequence >= s.last) {
        s.first = b.first_sequence;
        s.last = b.last_sequence;
        s.next_offset = b.first_offset + b.objects;
    }
    s.started = true;
    out.push_back(std::move(b));
}

void block_reorder::drain(sender_state& s, std::vector<ordered_block>& out) {
    while (!s.held.empty() && follows(s, s.held.begin()->second)) {
        auto node = s.held.extract(s.held.begin());
        held_bytes_ -= node.mapped().bytes.size();
        --held_count_;
        release(s, std::move(node.mapped()), out);
    }
}

void block_reorder::release_first_held(sender_state& s, std::vector<ordered_block>& out) {
    auto node = s.held.extract(s.held.begin());
    held_bytes_ -= node.mapped().bytes.size();
    --held_count_;
    release(s, std::move(node.mapped()), out);
    drain(s, out);
}

void block_reorder::add(ordered_block b, std::vector<ordered_block>& out) {
    const auto now = b.stream_sequence;
    auto& s = senders_[b.sender];
    if (follows(s, b)) {
        release(s, std::move(b), out);
        drain(s, out);
    } else if (s.started && b.last_sequence <= s.last && b.first_sequence < s.first) {
        release(s, std::move(b), out);  // too late to keep its place: served now, not lost
    } else {
        const key k{b.first_sequence, b.first_offset};
        arrivals_.emplace_back(now, b.sender, k);
        held_bytes_ += b.bytes.size();
        ++held_count_;
        s.held.emplace(k, std::move(b));
    }
    age(now, out);
}

// Held past hold_messages stream messages, or more than hold_bytes held: the oldest held
// block's sender goes on from its smallest held block.
void block_reorder::age(std::uint64_t now, std::vector<ordered_block>& out) {
    while (!arrivals_.empty()) {
        const auto& [since, sender, k] = arrivals_.front();
        auto it = senders_.find(sender);
        if (it == senders_.end() || !it->second.held.count(k)) {
            arrivals_.pop_front();  // released meanwhile
            continue;
        }
        if (now - since < hold_messages_ && held_bytes_ <= hold_bytes_) break;
        arrivals_.pop_front();
        release_first_held(it->second, out);
    }
}

void block_reorder::flush(std::vector<ordered_block>& out) {
    for (auto& [sender, s] : senders_)
        while (!s.held.empty())
            release_first_held(s, out);
    arrivals_.clear();
}

}  // namespace objwire::daemon
