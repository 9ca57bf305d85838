// UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF). Every string
// that crosses the wire is checked once, in whole buffers, with an ASCII fast path.
#pragma once

#include <string_view>

namespace objwire {

bool is_valid_utf8(std::string_view s) noexcept;

}  // namespace objwire
