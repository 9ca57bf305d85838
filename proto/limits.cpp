#include "proto/limits.hpp"

#include "proto/errors.hpp"

namespace objwire {

std::string exceeded_limit(std::error_code ec, const decoder_limits& l) {
    const auto text = [](std::uint64_t value, const char* unit, const char* key) {
        return std::to_string(value) + unit + ", " + key;
    };
    if (ec == proto_errc::string_too_long)
        return text(l.max_string_bytes, " bytes", "limits.max_string_bytes");
    if (ec == proto_errc::too_many_elements)
        return text(l.max_elements, " elements", "limits.max_elements");
    if (ec == proto_errc::depth_exceeded) return text(l.max_depth, " levels", "limits.max_depth");
    if (ec == proto_errc::reference_bytes_exceeded)
        return text(l.max_reference_bytes, " bytes", "limits.max_reference_bytes");
    return {};
}

}  // namespace objwire
