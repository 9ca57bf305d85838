// The sender's string -> table id lookup: open addressing with linear probing over 8-byte
// slots (32 bits of the hash, the id), so a lookup reads one cache line in the common case.
// std::unordered_map walks a node list instead - a dependent cache miss per node, a 64-bit
// division per step, and one node past the bucket on every miss - which was a third of
// `objwire send`'s CPU time on the events workload (docs/PERFORMANCE.md).
//
// The index holds no strings: the caller's entries do, and `key_of(id)` reads one for the
// final comparison, made only when 32 bits of hash already match.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "proto/string_hash.hpp"

namespace objwire {

class string_index {
  public:
    template <class KeyOf>
    std::optional<std::uint32_t> find(std::string_view s, const KeyOf& key_of) const {
        if (count_ == 0) return std::nullopt;
        const std::uint32_t h = hash(s);
        for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
            const slot& at = slots_[i];
            if (at.id_plus_one == 0) return std::nullopt;
            if (at.hash == h && same_string(key_of(at.id_plus_one - 1), s))
                return at.id_plus_one - 1;
        }
    }

    // `s` must not be in the index yet.
    void insert(std::string_view s, std::uint32_t id) {
        if ((count_ + 1) * 2 > slots_.size()) grow();
        place({hash(s), id + 1});
        ++count_;
    }

    // Removes the entry (s, id), if present.
    void erase(std::string_view s, std::uint32_t id) {
        if (count_ == 0) return;
        std::size_t i = hash(s) & mask_;
        for (; slots_[i].id_plus_one != id + 1; i = (i + 1) & mask_) {
            if (slots_[i].id_plus_one == 0) return;
        }
        // Backward-shift deletion: later slots of the probe run move up, so lookups never meet
        // a hole before their entry (no tombstones to clean up).
        for (std::size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
            if (slots_[j].id_plus_one == 0) break;
            const std::size_t home = slots_[j].hash & mask_;
            // Slot j may fill the hole at i unless its home lies cyclically in (i, j].
            const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
            if (stays) continue;
            slots_[i] = slots_[j];
            i = j;
        }
        slots_[i] = slot{};
        --count_;
    }

    void clear() {
        slots_.assign(slots_.size(), slot{});
        count_ = 0;
    }
    std::size_t size() const { return count_; }

  private:
    struct slot {
        std::uint32_t hash = 0;
        std::uint32_t id_plus_one = 0;  // 0: empty
    };

    static std::uint32_t hash(std::string_view s) {
        const std::uint64_t h = hash_string(s);
        return static_cast<std::uint32_t>(h ^ (h >> 32));
    }

    void place(slot s) {
        std::size_t i = s.hash & mask_;
        while (slots_[i].id_plus_one != 0)
            i = (i + 1) & mask_;
        slots_[i] = s;
    }

    void grow() {
        std::vector<slot> old(slots_.empty() ? 64 : slots_.size() * 2);
        old.swap(slots_);
        mask_ = slots_.size() - 1;
        for (const slot& s : old) {
            if (s.id_plus_one != 0) place(s);
        }
    }

    std::vector<slot> slots_;
    std::size_t mask_ = 0;
    std::size_t count_ = 0;
};

}  // namespace objwire
