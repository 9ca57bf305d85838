// Prints the settings key tables of both programs (config/daemon_keys.cpp,
// config/client_keys.cpp) as tab-separated lines, so objwired.toml(5) is made from the very
// table the loader checks against and cannot drift from it (packaging/make_docs.py):
//   PROGRAM <TAB> KEY <TAB> KIND <TAB> DEFAULT <TAB> ALLOWED <TAB> ENVIRONMENT <TAB> DOC
#include <iostream>
#include <string_view>
#include <vector>

#include "config/settings.hpp"

namespace {

void print(std::string_view program, const std::vector<objwire::config::key_info>& keys) {
    for (const auto& k : keys) {
        std::cout << program << '\t' << k.name << '\t' << k.kind << '\t' << k.default_text << '\t'
                  << k.allowed << '\t' << k.env_var << '\t' << k.doc << '\n';
    }
}

}  // namespace

int main() {
    print("objwired", objwire::config::daemon_keys());
    print("objwire", objwire::config::client_keys());
    return std::cout.good() ? 0 : 1;
}
