// Fuzz target: the stats frame's payload decoder (proto/metric_families.hpp), what `objwire
// stats` reads from a daemon. Whatever the bytes: no crash, an error that is an error, and a
// payload that decodes encodes again to bytes that decode and encode to the same bytes
// (unknown fields are skipped, and a NaN value is not equal to itself, so bytes are compared).
//
// Input: the payload.
#include "fuzz_support.hpp"
#include "proto/metric_families.hpp"

using namespace objwire;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto families = decode_metric_families({data, size});
    if (!families) {
        FUZZ_CHECK(families.error());
        return 0;
    }
    FUZZ_CHECK(families->size() <= max_metric_families);
    byte_buffer once;
    encode_metric_families(*families, once);
    auto back = decode_metric_families(once.span());
    FUZZ_CHECK(back.has_value());
    byte_buffer twice;
    encode_metric_families(*back, twice);
    FUZZ_CHECK(once.size() == twice.size() &&
               std::equal(once.data(), once.data() + once.size(), twice.data()));
    return 0;
}
