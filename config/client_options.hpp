// The CLI's settings (file, environment, flags: client_settings) and the library's typed
// options (include/objwire/options.hpp) are one set of keys in two forms; these convert
// between them. Both directions are exact for settings that passed validation: the loader
// checked every text field, so none is lost in the enums.
#pragma once

#include <objwire/options.hpp>
#include "config/settings.hpp"

namespace objwire::config {

client::options to_options(const client_settings& s);
client_settings from_options(const client::options& o);

}  // namespace objwire::config
