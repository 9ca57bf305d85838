// A live status line on stderr for long work (`send`, `bench`, `read`): objects, objects/s,
// MB/s, whether frames are compressed and the share acknowledged. Drawn only when stderr is a
// terminal, so pipes and logs never see it; redrawn at most every 250 ms and erased by
// finish(), so the final report starts on a clean line.
//
//   progress_line p("send");
//   for (...) { ...; p.tick([&] { return progress_sample{...}; }); }
//   p.finish();
#pragma once

#include <cstdint>
#include <string>

namespace objwire::client {

struct progress_sample {
    std::uint64_t objects = 0;  // done so far
    std::uint64_t bytes = 0;    // bytes so far, of whatever the caller counts (shown as MB/s)
    std::uint64_t acked = 0;    // objects acknowledged so far
    bool compressing = false;   // whether frames are being compressed now
};

class progress_line {
  public:
    // `label` starts the line ("send"); `bytes_name` says what the MB/s counts ("wire").
    // `enabled` defaults to whether stderr is a terminal.
    explicit progress_line(std::string label, std::string bytes_name = "wire");
    progress_line(std::string label, std::string bytes_name, bool enabled);
    ~progress_line();
    progress_line(const progress_line&) = delete;
    progress_line& operator=(const progress_line&) = delete;

    // Call once per unit of work; `make_sample` runs only when the line is due for a redraw,
    // so a tick costs a counter increment (and a coarse clock read every 256 ticks).
    template <class F>
    void tick(F&& make_sample) {
        if (!enabled_ || (++ticks_ & 255u) != 0 || !due()) return;
        draw(make_sample());
    }
    // Draws now (if enabled), whatever the time since the last redraw.
    void draw(const progress_sample& s);
    // Erases the line (before printing something else); later ticks draw it again.
    void clear();
    // Erases the line; later ticks draw nothing.
    void finish();

    bool enabled() const { return enabled_; }
    // The text of a line for `s` after `seconds` (exposed for tests).
    std::string format(const progress_sample& s, double seconds) const;

    static bool stderr_is_terminal();

  private:
    bool due();

    std::string label_;
    std::string bytes_name_;
    bool enabled_;
    bool drawn_ = false;
    std::uint32_t ticks_ = 0;
    std::uint64_t start_ns_ = 0;
    std::uint64_t last_draw_ns_ = 0;
};

}  // namespace objwire::client
