#include "client/cli/progress.hpp"

#include "client/lib/coarse_clock.hpp"

#include <unistd.h>

#include <cstdio>

namespace objwire::client {
namespace {

// At most four redraws a second: enough to look live, too few to cost anything.
constexpr std::uint64_t redraw_every_ns = 250'000'000;

// 1234567 -> "1,234,567": long counts are read at a glance.
std::string grouped(std::uint64_t n) {
    std::string digits = std::to_string(n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

}  // namespace

progress_line::progress_line(std::string label, std::string bytes_name)
    : progress_line(std::move(label), std::move(bytes_name), stderr_is_terminal()) {}

progress_line::progress_line(std::string label, std::string bytes_name, bool enabled)
    : label_(std::move(label)),
      bytes_name_(std::move(bytes_name)),
      enabled_(enabled),
      start_ns_(coarse_now_ns()),
      last_draw_ns_(start_ns_) {}

progress_line::~progress_line() {
    finish();
}

bool progress_line::stderr_is_terminal() {
    return ::isatty(STDERR_FILENO) == 1;
}

bool progress_line::due() {
    const std::uint64_t now = coarse_now_ns();
    if (now - last_draw_ns_ < redraw_every_ns) return false;
    last_draw_ns_ = now;
    return true;
}

std::string progress_line::format(const progress_sample& s, double seconds) const {
    const double per_s = seconds > 0 ? static_cast<double>(s.objects) / seconds : 0;
    const double mb_s = seconds > 0 ? static_cast<double>(s.bytes) / 1e6 / seconds : 0;
    const double acked =
        s.objects ? 100.0 * static_cast<double>(s.acked) / static_cast<double>(s.objects) : 0;
    char rates[160];
    std::snprintf(rates, sizeof rates, "%s obj/s  %.1f MB/s %s  compression %s  acked %.0f%%",
                  grouped(static_cast<std::uint64_t>(per_s)).c_str(), mb_s, bytes_name_.c_str(),
                  s.compressing ? "on" : "off", acked);
    return "objwire " + label_ + ": " + grouped(s.objects) +
           (s.objects == 1 ? " object  " : " objects  ") + rates;
}

void progress_line::draw(const progress_sample& s) {
    if (!enabled_) return;
    const double seconds = static_cast<double>(coarse_now_ns() - start_ns_) / 1e9;
    // \r back to the start, the text, then erase whatever a longer previous line left.
    std::fprintf(stderr, "\r%s\033[K", format(s, seconds).c_str());
    std::fflush(stderr);
    drawn_ = true;
}

void progress_line::clear() {
    if (enabled_ && drawn_) {
        std::fputs("\r\033[K", stderr);
        std::fflush(stderr);
    }
    drawn_ = false;
}

void progress_line::finish() {
    clear();
    enabled_ = false;
}

}  // namespace objwire::client
