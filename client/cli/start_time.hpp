// Where `objwire read` starts by time: `--from @TIME` and `--since DURATION`, turned into the
// milliseconds since the Unix epoch that the hello's read_since_ms carries (the journal block
// header's stored time, docs/JOURNAL.md 2). No I/O: the caller passes the clock's now.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace objwire::client {

// TIME after the '@': milliseconds since the Unix epoch (digits only), or an ISO 8601 UTC
// time `YYYY-MM-DDTHH:MM:SS[.fff]` ending in `Z` or an offset `+HH:MM`/`-HH:MM` (a space may
// stand for the `T`). nullopt for anything else, a time before 1970 included.
std::optional<std::uint64_t> parse_start_time(std::string_view text);

// DURATION as config durations are written (`90s`, `10m`, `2h`, `500ms`; `d` for days):
// now_ms minus it, and never before the epoch. nullopt for anything else, or for 0.
std::optional<std::uint64_t> parse_since(std::string_view text, std::uint64_t now_ms);

}  // namespace objwire::client
