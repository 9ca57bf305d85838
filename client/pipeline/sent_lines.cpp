#include "client/pipeline/sent_lines.hpp"

namespace objwire::client {

void sent_lines::add(std::uint64_t line) {
    if (!runs_.empty()) {
        run& last = runs_.back();
        if (last.first_line + last.count == line) {
            ++last.count;
            ++sent_;
            return;
        }
    }
    runs_.push_back({sent_++, line, 1});
}

void sent_lines::acked(std::uint64_t objects) {
    while (!runs_.empty()) {
        run& front = runs_.front();
        if (objects <= front.first_object) return;
        const std::uint64_t done = objects - front.first_object;  // of this run's objects
        if (done < front.count) {
            last_stored_line_ = front.first_line + done - 1;
            front.first_object += done;
            front.first_line += done;
            front.count -= done;
            return;
        }
        last_stored_line_ = front.first_line + front.count - 1;
        runs_.pop_front();
    }
}

}  // namespace objwire::client
