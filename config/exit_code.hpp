// The exit code of both programs for settings they cannot use: objwired at start or with
// --check-config, objwire's subcommands and `objwire config check`. 78 is EX_CONFIG of
// sysexits.h, which systemd shows as `status=78/CONFIG` and which the unit names in
// RestartPreventExitStatus=, so a daemon with a bad config is not restarted in a loop.
#pragma once

namespace objwire::config {

inline constexpr int bad_config_exit = 78;

}  // namespace objwire::config
