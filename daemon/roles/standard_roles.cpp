#include "daemon/roles/standard_roles.hpp"

namespace objwire::daemon {

role_table standard_roles() {
    return {.reader = serve_reader, .stats = serve_stats};
}

}  // namespace objwire::daemon
