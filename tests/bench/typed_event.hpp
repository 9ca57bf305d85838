// The events workload's record as a described struct (include/objwire/typed.hpp), for the typed
// benchmark and tests: same record name and fields as the workload's `Event`.
#pragma once

#include <cstdint>
#include <string>

#include <objwire/typed.hpp>

namespace typed_events {

struct Event {
    std::int64_t ts = 0;
    std::string level;
    std::string host;
    std::string service;
    std::string msg;
    std::string user;
    double latency_ms = 0;
};
BOOST_DESCRIBE_STRUCT(Event, (), (ts, level, host, service, msg, user, latency_ms))

// The struct of one of the workload's messages.
inline Event from_record(const objwire::message& m) {
    const auto& f = m.root.get<objwire::record>().fields;
    return {f[0].get<std::int64_t>(), f[1].get<std::string>(), f[2].get<std::string>(),
            f[3].get<std::string>(),  f[4].get<std::string>(), f[5].get<std::string>(),
            f[6].get<double>()};
}

}  // namespace typed_events
