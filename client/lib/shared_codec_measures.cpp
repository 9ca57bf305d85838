#include "client/lib/shared_codec_measures.hpp"

#include <algorithm>

namespace objwire::client {

shared_codec_measures& shared_codec_measures::of_process() {
    static shared_codec_measures measures;
    return measures;
}

std::vector<codec_measure> shared_codec_measures::recall() const {
    std::lock_guard lock(mutex_);
    return figures_;
}

void shared_codec_measures::remember(const codec_measure& m) {
    std::lock_guard lock(mutex_);
    const auto same_level = [&](const codec_measure& f) {
        return f.codec == m.codec && f.level == m.level;
    };
    if (auto it = std::find_if(figures_.begin(), figures_.end(), same_level); it != figures_.end())
        *it = m;
    else
        figures_.push_back(m);
}

}  // namespace objwire::client
