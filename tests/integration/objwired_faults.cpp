// The failures objwired_faults (a test build of objwired: daemon/main.cpp with
// OBJWIRED_TEST_FAULTS) injects, chosen by OBJWIRED_TEST_FAULT, so a test can check that the
// daemon survives them. The installed objwired has no such hook and reads no such variable.
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string_view>

#include "daemon/serve/server.hpp"

namespace {

// session_exception: each session throws right after its welcome.
class session_exception final : public objwire::daemon::fault_injection {
  public:
    void after_admit() override { throw std::runtime_error("injected fault (session_exception)"); }
};

}  // namespace

// daemon/main.cpp calls it, built with OBJWIRED_TEST_FAULTS, before the server starts.
void install_test_faults(objwire::daemon::server& srv) {
    const char* fault = std::getenv("OBJWIRED_TEST_FAULT");
    if (fault && std::string_view(fault) == "session_exception")
        srv.inject_faults(std::make_shared<session_exception>());
}
