// The reset cadence of the back-reference table, as a sender chooses it.
//   adaptive   (default) index only values whose field shows reuse; CLOCK eviction keeps the
//              table within budget, so the table is never reset wholesale.
//   never      index every short string; evict when full; never reset.
//   every:N    reset before every Nth message (Java's reset() every N writes).
//   every:NKiB reset once N bytes were encoded since the last reset (units B, KiB, MiB, KB, MB).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <objwire/proto/result.hpp>

namespace objwire {

struct reset_policy {
    enum class kind { adaptive, never, every_messages, every_bytes };
    kind mode = kind::adaptive;
    std::uint64_t every = 0;

    static result<reset_policy> parse(std::string_view text);
    std::string to_string() const;
    bool indexes_selectively() const { return mode == kind::adaptive; }
    bool operator==(const reset_policy&) const = default;
};

}  // namespace objwire
