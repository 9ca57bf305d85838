#include "daemon/serve/reply_queue.hpp"

#include <algorithm>
#include <utility>

namespace objwire::daemon {

void reply_queue::push(std::span<const std::uint8_t> bytes, std::uint64_t received_ns,
                       bool released, std::uint64_t held) {
    reply r;
    r.id = next_id_++;
    r.released = released;
    r.bytes.append(bytes);
    r.received_ns = received_ns;
    r.held = released ? 0 : held;
    held_bytes_ += r.held;
    replies_.push_back(std::move(r));
}

void reply_queue::push_released(std::span<const std::uint8_t> bytes, std::uint64_t received_ns) {
    push(bytes, received_ns, true, 0);
}

void reply_queue::push_held(std::span<const std::uint8_t> bytes, std::uint64_t received_ns,
                            std::uint64_t held) {
    push(bytes, received_ns, false, held);
}

std::uint64_t reply_queue::release(std::uint64_t id) {
    for (auto& r : replies_) {
        if (r.id != id || r.released) continue;
        r.released = true;
        held_bytes_ -= r.held;
        return std::exchange(r.held, 0);
    }
    return 0;
}

std::uint64_t reply_queue::drop_from(std::uint64_t id) {
    const auto first =
        std::find_if(replies_.begin(), replies_.end(), [id](const reply& r) { return r.id >= id; });
    std::uint64_t dropped = 0;
    for (auto r = first; r != replies_.end(); ++r)
        dropped += r->held;
    replies_.erase(first, replies_.end());
    held_bytes_ -= dropped;
    return dropped;
}

void reply_queue::take_released(byte_buffer& out, std::vector<std::uint64_t>& acked_ns) {
    while (has_released()) {
        out.append(replies_.front().bytes.span());
        if (replies_.front().received_ns != 0) acked_ns.push_back(replies_.front().received_ns);
        replies_.pop_front();
    }
}

bool reply_queue::all_released() const {
    return std::all_of(replies_.begin(), replies_.end(), [](const reply& r) { return r.released; });
}

}  // namespace objwire::daemon
