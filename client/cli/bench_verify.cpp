#include "client/cli/bench_verify.hpp"

#include <objwire/reader.hpp>
#include "client/workloads/workloads.hpp"
#include "proto/lazy_value.hpp"

namespace objwire::client {

verify_result verify_stored(const config::client_settings& settings, const std::string& sender_id,
                            std::string_view workload, std::uint64_t count) {
    verify_result v;
    auto w = workloads::make(workload);
    if (!w) {
        v.error = "unknown workload '" + std::string(workload) + "'";
        v.mismatches = count;
        return v;
    }
    read_options o;
    o.sender = sender_id;
    o.client_name = "objwire bench --verify";
    reader r(settings, o);
    if (r.open()) {
        v.error = r.last_error();
        v.mismatches = count;
        return v;
    }
    stored_message m;
    message expected;
    while (r.next(m)) {
        ++v.read;
        if (v.read > count) {
            ++v.mismatches;  // more than this run sent
            continue;
        }
        w->next(expected);
        // Reading is accessing: lazy values (a sender's [lazy] fields) compare expanded.
        if (!expand_lazy_values(m.value) && canonical(m.value) == canonical(expected))
            ++v.verified;
        else
            ++v.mismatches;
    }
    if (r.error()) v.error = r.last_error();
    if (v.read < count) v.mismatches += count - v.read;
    return v;
}

}  // namespace objwire::client
