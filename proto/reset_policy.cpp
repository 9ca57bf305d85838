#include "proto/reset_policy.hpp"

#include <charconv>

#include "proto/errors.hpp"

namespace objwire {
namespace {

std::uint64_t unit_factor(std::string_view unit) {
    if (unit.empty()) return 0;  // a plain number counts messages
    if (unit == "B") return 1;
    if (unit == "KiB") return 1024;
    if (unit == "MiB") return 1024 * 1024;
    if (unit == "KB") return 1000;
    if (unit == "MB") return 1000 * 1000;
    return UINT64_MAX;
}

}  // namespace

result<reset_policy> reset_policy::parse(std::string_view text) {
    if (text == "adaptive") return reset_policy{kind::adaptive, 0};
    if (text == "never") return reset_policy{kind::never, 0};
    if (!text.starts_with("every:")) return proto_errc::bad_message;
    text.remove_prefix(6);
    std::uint64_t n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc{} || n == 0) return proto_errc::bad_message;
    const std::uint64_t factor =
        unit_factor(text.substr(static_cast<std::size_t>(end - text.data())));
    if (factor == UINT64_MAX) return proto_errc::bad_message;
    if (factor == 0) return reset_policy{kind::every_messages, n};
    if (n > UINT64_MAX / factor) return proto_errc::bad_message;
    return reset_policy{kind::every_bytes, n * factor};
}

std::string reset_policy::to_string() const {
    switch (mode) {
        case kind::adaptive:
            return "adaptive";
        case kind::never:
            return "never";
        case kind::every_messages:
            return "every:" + std::to_string(every);
        case kind::every_bytes:
            return "every:" + std::to_string(every) + "B";
    }
    return "adaptive";
}

}  // namespace objwire
