#include "daemon/sinks/held_memory.hpp"

#include <algorithm>

#include "proto/reference_table.hpp"

namespace objwire::daemon {
namespace {

// As proto/reference_table.cpp counts them: a heap block of n bytes, a std::string object.
constexpr std::uint64_t block(std::uint64_t n) {
    return n + 16;
}
constexpr std::uint64_t string_object = 32;

}  // namespace

std::uint64_t message_memory::add(const message& m) {
    // The root node is inside the message's slot; what it owns is not.
    std::uint64_t cost = message_slot + value_cost(m.root) - sizeof(value);
    if (!m.objects.empty()) cost += block(0);
    for (const auto& o : m.objects)
        cost += value_cost(o);
    bytes_ += cost;
    return cost;
}

// held_value_cost() but for records' types, which the batch's messages share: each is charged
// once, to the first message that holds it.
std::uint64_t message_memory::value_cost(const value& v) {
    switch (v.type()) {
        case value::kind::list: {
            std::uint64_t cost = sizeof(value) + block(0);
            for (const auto& item : v.get<list>())
                cost += value_cost(item);
            return cost;
        }
        case value::kind::map: {
            std::uint64_t cost = sizeof(value) + block(0);
            for (const auto& [key, item] : v.get<map>())
                cost += string_object + block(key.size()) + value_cost(item);
            return cost;
        }
        case value::kind::record: {
            const auto& r = v.get<record>();
            std::uint64_t cost = sizeof(value) + block(0);
            if (r.type && types_.insert(r.type.get()).second) {
                type_order_.push_back(r.type.get());
                cost += type_entry_cost(*r.type);
            }
            for (const auto& field : r.fields)
                cost += value_cost(field);
            return cost;
        }
        default:
            return held_value_cost(v);
    }
}

void message_memory::mark() {
    mark_bytes_ = bytes_;
    mark_types_ = type_order_.size();
}

void message_memory::rollback() {
    bytes_ = mark_bytes_;
    while (type_order_.size() > mark_types_) {
        types_.erase(type_order_.back());
        type_order_.pop_back();
    }
}

void message_memory::clear() {
    bytes_ = mark_bytes_ = 0;
    types_.clear();
    type_order_.clear();
    mark_types_ = 0;
}

std::size_t memory_charge::read_limit(std::size_t offered, std::uint64_t held, std::uint64_t cap) {
    const std::uint64_t room = held < cap ? (cap - held) / max_per_wire_byte : 0;
    const std::uint64_t limit = std::max<std::uint64_t>(room, min_read);
    return static_cast<std::size_t>(std::min<std::uint64_t>(offered, limit));
}

std::string memory_charge::frame_refusal(std::uint64_t frame_memory, std::uint64_t cap) {
    if (frame_memory <= cap) return {};
    return "a frame whose messages take " + std::to_string(frame_memory) +
           " bytes of memory decoded, more than this relay holds for a connection: over "
           "limits.max_buffered_bytes (" +
           std::to_string(cap) + " bytes)";
}

}  // namespace objwire::daemon
