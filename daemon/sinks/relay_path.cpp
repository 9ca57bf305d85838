#include "daemon/sinks/relay_path.hpp"

#include <algorithm>
#include <cstdio>
#include <random>

namespace objwire::daemon {

std::string make_relay_id(std::string_view listen) {
    std::random_device rd;
    char tag[16];
    std::snprintf(tag, sizeof tag, "%08x", static_cast<unsigned>(rd()));
    return std::string(listen) + "#" + tag;
}

std::string path_text(const std::vector<std::string>& path) {
    std::string text;
    for (const auto& relay : path)
        text += (text.empty() ? "" : " -> ") + relay;
    return text;
}

std::string relay_path_refusal(const std::vector<std::string>& path, std::string_view self,
                               std::uint64_t max_hops) {
    if (!self.empty() && std::find(path.begin(), path.end(), self) != path.end())
        return "relay loop: the stream already passed this relay (" + std::string(self) +
               "); its path: " + path_text(path) + " -> " + std::string(self);
    if (path.size() > max_hops)
        return "the stream passed " + std::to_string(path.size()) + " relays (" + path_text(path) +
               "), the most this daemon takes (limits.max_hops = " + std::to_string(max_hops) + ")";
    return {};
}

}  // namespace objwire::daemon
