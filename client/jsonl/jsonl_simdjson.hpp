// The JSON reader's reaches into simdjson's protected members, all of them, in one place.
// simdjson's public API answers the same questions out of line or through memory, which cost
// a few percent of `objwire send` each (see below); these read its iterators directly. They
// depend on simdjson's internals, so the version they were written and tested against is
// pinned: another simdjson stops the build here, and the reader's tests (tests/unit/json, the
// block and round-trip tests included) say whether they still hold before the pin moves.
#pragma once

#include <simdjson.h>

static_assert(simdjson::SIMDJSON_VERSION_MAJOR == 3 && simdjson::SIMDJSON_VERSION_MINOR == 0 &&
                  simdjson::SIMDJSON_VERSION_REVISION == 1,
              "client/jsonl/jsonl_simdjson.hpp reaches into simdjson 3.0.1's protected members "
              "(Debian 12's libsimdjson-dev): check them against this version, then move the pin");

namespace objwire::jsonl_detail {

namespace od = simdjson::ondemand;

// Whether a parsed document has nothing after its root value. document::current_location()
// says so too, but out of line and returning its result through memory in a way that stalled
// on store forwarding once per line (~2% of `objwire encode`); the document's own iterator
// (protected, reached through a pointer to member) answers inline. A dead iterator (after an
// error) has no position: the caller asks current_location() then.
struct document_end : od::document {
    static bool at_end(od::document& d) {
        const od::json_iterator& it = d.*(&document_end::iter);
        return it.is_alive() && it.at_end();
    }
    // The text at the document's next token: its first before it is read, what follows it
    // after (in a block, the next line's document, or the end of the block).
    static const char* next_token(od::document& d) {
        const od::json_iterator& it = d.*(&document_end::iter);
        return reinterpret_cast<const char*>(it.unsafe_pointer());
    }
};

// Moves a value's iterator past a number read by the reader itself rather than by simdjson's
// getters (a protected member, reached as document_end reaches the document's iterator).
struct value_access : od::value {
    static od::value_iterator& iterator(od::value& v) { return v.*(&value_access::iter); }
};
struct scalar_skip : od::value_iterator {
    static void past(od::value_iterator& it) {
        (it.*(&scalar_skip::advance_non_root_scalar))("number");
    }
};
[[gnu::always_inline]] inline void skip_number(od::value& v) {
    scalar_skip::past(value_access::iterator(v));
}

}  // namespace objwire::jsonl_detail
