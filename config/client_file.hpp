// Which settings file objwire reads when no -c/--config is given: the one $OBJWIRE_CONFIG
// names, else the user's ($XDG_CONFIG_HOME/objwire/objwire.toml, or ~/.config/objwire/...),
// else the package's /etc/objwire/objwire.toml. The first that exists is read, alone; none
// means the built-in defaults. The rule takes the environment and the file system as
// functions, so unit tests run it on a fake HOME.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.hpp"

namespace objwire::config {

// The package's client settings file (the Debian package ships it as a conffile).
inline constexpr std::string_view system_client_file = "/etc/objwire/objwire.toml";
// The variable that names objwire's settings file.
inline constexpr std::string_view config_file_variable = "OBJWIRE_CONFIG";

struct client_file {
    std::string path;      // "" when no file is read: the built-in defaults
    std::string found_by;  // "-c", "$OBJWIRE_CONFIG", or "search" (a default place)
    // The default places in search order, for `objwire config show` (when searched).
    std::vector<std::string> searched;
    // One line for `objwire config show`: which file, and why that one.
    std::string describe() const;
};

using exists_function = std::function<bool(const std::string&)>;

// `flag_file` is -c/--config ("" when not given): it wins and is not searched for (a missing
// one fails when read). A file $OBJWIRE_CONFIG names must exist: its absence is an error
// naming the variable. The default places are optional.
outcome<client_file> choose_client_file(std::string_view flag_file,
                                        const getenv_function& getenv_fn,
                                        const exists_function& exists);

// The same on the process's environment and file system.
outcome<client_file> find_client_file(std::string_view flag_file);

}  // namespace objwire::config
