// Counts the bytes allocated through operator new in this test binary, so a test can assert
// that decompressing a bomb never holds more than the cap. Defined in alloc_probe.cpp, which
// replaces the global operator new and delete.
#pragma once

#include <cstddef>

namespace objwire::test {

// Live bytes now, and the most that were live since the last reset_peak().
std::size_t live_bytes();
std::size_t peak_bytes();
void reset_peak();

}  // namespace objwire::test
