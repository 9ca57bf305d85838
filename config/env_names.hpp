// OBJWIRE_* environment variables that no setting reads. Every key has its variable
// (OBJWIRE_<SECTION>_<KEY>); a misspelt one would otherwise be ignored without a word, so
// `objwire config check` refuses it and objwired warns at start, each with a did-you-mean.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace objwire::config {

struct unknown_variable {
    std::string name;        // "OBJWIRE_SERVER_LISEN"
    std::string suggestion;  // "OBJWIRE_SERVER_LISTEN", or empty when none is close
    // "OBJWIRE_SERVER_LISEN names no setting (did you mean OBJWIRE_SERVER_LISTEN?)"
    std::string message() const;
};

// The OBJWIRE_* names among `environment` (NAME=VALUE entries, as in environ) that neither
// objwired nor objwire reads, in the order given. A variable of the other program is known
// (both programs share one environment).
std::vector<unknown_variable> unknown_env_variables(std::span<const std::string_view> environment);

// The process's own environment, for the call above.
std::vector<std::string_view> process_environment();

}  // namespace objwire::config
