// The CLI's settings (file, environment, flags: client_settings) and the library's typed
// options (include/objwire/options.hpp) are one set of keys in two forms; these convert
// between them. Both directions are exact for settings that passed validation: the loader
// checked every text field, so none is lost in the enums.
#pragma once

#include <objwire/options.hpp>

#include <string>
#include <string_view>

#include "config/settings.hpp"

namespace objwire::config {

client::options to_options(const client_settings& s);
client_settings from_options(const client::options& o);

// The field of client::options a key of objwire.toml sets ("batch.max_bytes" ->
// "batch_max_bytes"; "client.to" -> "host", and the port); "" for a key it has none for.
std::string_view option_field(std::string_view key);
// check_options's words for an error of the settings `toml` (the options written as a settings
// file, named "options") in a program's terms: the field it set and the value it gave,
// "options.batch_max_bytes = 10 is out of range (allowed 1KiB..16MiB)", with no file position.
std::string options_error(const client::options& o, std::string_view toml,
                          std::string_view settings_error);

}  // namespace objwire::config
