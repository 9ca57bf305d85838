#include <objwire/version.hpp>

#include <cstdint>

#include "proto/codec.hpp"
#include "proto/control.hpp"

namespace objwire {

std::string version_text(std::string_view program) {
    std::string out(program);
    out += ' ';
    out += version;
    out += " (protocol " + std::to_string(protocol_version) + "; codecs:";
    const std::uint32_t built = built_codecs();
    for (unsigned id = 0; id < 32; ++id) {
        if ((built >> id) & 1u) {
            out += ' ';
            out += codec_name(static_cast<codec_id>(id));
        }
    }
    out += ')';
    return out;
}

}  // namespace objwire
