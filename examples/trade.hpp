// The struct the typed examples send and read, described once next to its definition, and
// the examples' HOST:PORT argument.
#pragma once

#include <objwire/options.hpp>
#include <objwire/typed.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace market {

enum class side { buy, sell };
BOOST_DESCRIBE_ENUM(side, buy, sell)  // travels by name: "buy", "sell"

struct Trade {
    std::string sym;
    double px = 0;
    std::int64_t qty = 0;
    side sd = side::buy;
    std::optional<std::string> venue;  // absent: null on the wire
    std::vector<std::string> tags;
    std::string scratch;  // the producer's own use: never sent
    static constexpr std::string_view objwire_name = "Trade";
    static constexpr std::array<std::string_view, 1> objwire_transient{"scratch"};
};
BOOST_DESCRIBE_STRUCT(Trade, (), (sym, px, qty, sd, venue, tags, scratch))

// Client options for the daemon at "HOST:PORT" (nullptr: the defaults, 127.0.0.1:7878);
// false when the text is no address.
inline bool daemon_at(const char* arg, objwire::client::options& settings) {
    if (arg == nullptr) return true;
    const std::string to = arg;
    const auto colon = to.rfind(':');
    if (colon == std::string::npos) return false;
    settings.host = to.substr(0, colon);
    settings.port = static_cast<std::uint16_t>(std::stoi(to.substr(colon + 1)));
    return true;
}

}  // namespace market
