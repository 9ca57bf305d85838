// What objwired's start needs beyond each key's own rule (config/daemon_rules.cpp): keys that
// only work together (sink.kind = "forward" needs forward.to; tls.cert_file and tls.key_file
// go in pairs) and files that must exist and be readable (token, TLS, credentials).
#pragma once

#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.hpp"

namespace objwire::config {

// Every problem, each naming its key and variable; none when the settings can start.
// `file_problem` says why a path cannot be read ("" when it can): readable_file_problem, or a
// stand-in in tests.
using file_problem_function = std::function<std::string(const std::string& path)>;
std::string readable_file_problem(const std::string& path);
std::vector<error> check_daemon_settings(
    const daemon_settings& s, const file_problem_function& file_problem = readable_file_problem);

// `problem` ("KEY: why", as check_daemon_settings words it) prefixed "PATH:LINE: " where the
// file at `path`, whose keys are written at `lines`, writes the key the problem names first:
// its own key, or else the one it depends on (sink.kind for "forward.to: must be set when
// sink.kind = ..."), the line an editor jumps to. Unchanged when the file writes none.
std::string place_in_file(std::string_view problem, std::string_view path,
                          std::span<const key_line> lines);
// The same for each problem, reading the file at `path`; unchanged when it cannot be read.
std::vector<std::string> place_in_file(std::vector<std::string> problems,
                                       const std::filesystem::path& path);

// Under the unit, systemd sets $STATE_DIRECTORY (one or more paths, ':'-separated) and
// ProtectSystem=strict leaves nothing else writable: why server.data_dir will not be writable
// there, or "" when it is inside one (or `state_directory` is empty: not under the unit).
// A warning, not a refusal: a drop-in may have added ReadWritePaths=.
std::string data_dir_outside_state_directory(const daemon_settings& s,
                                             std::string_view state_directory);

}  // namespace objwire::config
