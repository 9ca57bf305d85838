// Each program's schema and its description for help texts (config/schema.hpp).
#include "config/schema.hpp"
#include "config/convert.hpp"
#include "config/key_names.hpp"

namespace objwire::config {
namespace detail {

const schema<daemon_settings>& daemon_schema() {
    static const schema<daemon_settings> s{"objwired", "objwire", daemon_key_table(),
                                           names_of(client_key_table())};
    return s;
}

const schema<client_settings>& client_schema() {
    static const schema<client_settings> s{"objwire", "objwired", client_key_table(),
                                           names_of(daemon_key_table())};
    return s;
}

}  // namespace detail

namespace {

using namespace detail;

template <class S>
std::vector<key_info> describe(const schema<S>& sc) {
    std::vector<key_info> out;
    for (const auto& key : sc.keys) {
        out.push_back({std::string(key.name), std::string(kind_name(key.kind)),
                       std::string(key.default_text), allowed_text(key), std::string(key.doc),
                       env_var_for(key), empty_turns_off(key)});
    }
    return out;
}

}  // namespace

std::vector<key_info> daemon_keys() {
    return describe(daemon_schema());
}
std::vector<key_info> client_keys() {
    return describe(client_schema());
}

}  // namespace objwire::config
