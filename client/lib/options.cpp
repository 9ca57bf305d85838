#include <objwire/options.hpp>

#include "config/client_options.hpp"

namespace objwire::client {

// The one validation of every key: the options written as a settings file and read back by
// the loader, so a field is held to the same range and rule as the key in objwire.toml; the
// error then speaks of the field, not of the key and the position in that text.
std::string check_options(const options& o) {
    const auto toml = config::to_toml(config::from_options(o));
    const auto parsed = config::parse_client_toml(toml, "options");
    return parsed ? "" : config::options_error(o, toml, parsed.error().message);
}

bool load_options(const std::string& path, options& out, std::string& why) {
    const auto loaded = config::load_client_file(path);
    if (!loaded) {
        why = loaded.error().message;
        return false;
    }
    out = config::to_options(*loaded);
    return true;
}

}  // namespace objwire::client
