#include "alloc_probe.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<std::size_t> live{0};
std::atomic<std::size_t> peak{0};
// Each block carries its size in front, aligned for anything the default new returns.
constexpr std::size_t header = alignof(std::max_align_t);

void* allocate(std::size_t n) {
    auto* p = static_cast<unsigned char*>(std::malloc(n + header));
    if (!p) throw std::bad_alloc();
    *reinterpret_cast<std::size_t*>(p) = n;
    const std::size_t now = live.fetch_add(n) + n;
    std::size_t seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    return p + header;
}

void release(void* q) noexcept {
    if (!q) return;
    auto* p = static_cast<unsigned char*>(q) - header;
    live.fetch_sub(*reinterpret_cast<std::size_t*>(p));
    std::free(p);
}

}  // namespace

void* operator new(std::size_t n) {
    return allocate(n);
}
void* operator new[](std::size_t n) {
    return allocate(n);
}
void operator delete(void* p) noexcept {
    release(p);
}
void operator delete[](void* p) noexcept {
    release(p);
}
void operator delete(void* p, std::size_t) noexcept {
    release(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    release(p);
}

namespace objwire::test {

std::size_t live_bytes() {
    return live.load();
}
std::size_t peak_bytes() {
    return peak.load();
}
void reset_peak() {
    peak.store(live.load());
}

}  // namespace objwire::test
