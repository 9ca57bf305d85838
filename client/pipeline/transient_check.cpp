#include "client/pipeline/transient_check.hpp"

#include <string_view>

#include "config/suggest.hpp"

namespace objwire::client {

transient_check::transient_check(const transient_fields& transient) {
    for (const auto& [type, fields] : transient)
        for (const auto& field : fields)
            unmatched_.insert(type + "." + field);
}

void transient_check::saw(const record_type& t) {
    for (const auto& field : t.fields) {
        std::string name = t.name + "." + field;
        if (auto it = unmatched_.find(name); it != unmatched_.end()) {
            unmatched_.erase(it);
            ++matched_;
        }
        if (seen_.size() < max_seen) seen_.insert(std::move(name));
    }
}

std::vector<std::string> transient_check::warnings() const {
    std::vector<std::string> out;
    if (unmatched_.empty()) return out;
    const std::vector<std::string_view> candidates(seen_.begin(), seen_.end());
    for (const auto& name : unmatched_) {
        std::string text = "transient field " + name + " matched no record read";
        if (const auto guess = config::suggest(name, candidates))
            text += " (did you mean " + std::string(*guess) + "?)";
        out.push_back(std::move(text));
    }
    return out;
}

}  // namespace objwire::client
