// `objwire bench --rate N/s --connections N --readers N`: senders paced by an open-loop
// schedule (client/cli/open_loop.hpp), each object's latency from its due time to the
// acknowledgement that covers it; N connections in one process sharing the rate, each one's
// objects/s reported; N followers reporting delivery latency, acknowledged to delivered.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "config/settings.hpp"

namespace objwire::client {

struct load_flags {
    double rate = 0;           // objects/s over all connections; 0: each as fast as it can
    unsigned connections = 1;  // concurrent senders
    unsigned readers = 0;      // followers reading while the senders write
    std::string workload;
    std::uint64_t count = 0;  // objects over all connections
    bool json = false;
};

// "50000", "50000/s", "50k/s", "1.5M/s": objects per second, or nothing if it is not a rate.
std::optional<double> parse_rate(const std::string& text);

// Runs the load and prints its report; returns an exit code (client/cli/subcommand.hpp).
int run_load(config::client_settings settings, const load_flags& f);

}  // namespace objwire::client
