// Which input line each sent object came from, kept for the objects not yet acknowledged, so
// that a partial outcome can say where in the input the stored part ends. Consecutive lines
// share one entry: a clean input needs one, each skipped or blank line starts another.
//
//   sent_lines lines;
//   lines.add(line);                                   // per object sent, in order
//   lines.acked(c.stats().objects_acked);              // now and then, and at the end
//   lines.last_stored_line();                          // 0: none stored
#pragma once

#include <cstdint>
#include <deque>

namespace objwire::client {

class sent_lines {
  public:
    // The next object sent came from input line `line` (lines only grow).
    void add(std::uint64_t line);
    // The first `objects` objects sent are acknowledged: their lines are forgotten but the last.
    void acked(std::uint64_t objects);
    // The line of the last acknowledged object, after the latest acked() call; 0 if none.
    std::uint64_t last_stored_line() const { return last_stored_line_; }
    // Entries held (for tests, and to know when to call acked()).
    std::size_t runs() const { return runs_.size(); }

  private:
    struct run {
        std::uint64_t first_object;  // 0-based position among the objects sent
        std::uint64_t first_line;
        std::uint64_t count;
    };
    std::deque<run> runs_;
    std::uint64_t sent_ = 0;
    std::uint64_t last_stored_line_ = 0;
};

}  // namespace objwire::client
