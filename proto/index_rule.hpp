// Which strings the encoder puts into the reference table: the sender's choice alone (the
// receiver only mirrors it), made here and nowhere else.
//
// Under the adaptive reset policy a field's strings are indexed only while its indexed values
// earn their entries: each field counts what it inserted, what its lookups hit, and what it
// declined. A field that stops earning - ids, free text - is declined: its values travel as
// literals without a lookup, except one in usage_probe_every, which is looked up and indexed
// so the field notices when its values start recurring. Under the other policies every string
// is looked up and every miss indexed.
#pragma once

#include <cstdint>

namespace objwire {

// What to do with one string, decided before it is looked up.
enum class string_route : std::uint8_t {
    literal,  // a declined field's value: no lookup, sent as a literal
    look_up,  // looked up; a miss is indexed if the field's counts say so
    sample,   // a declined field's probe: looked up, and a miss is indexed
    always,   // a type descriptor's name or field name: a miss is always indexed, nothing counted
};

// One field's counts (or those shared by strings outside record fields). What a type's fields
// taught outlives a table reset, so they are plain data the encoder keeps by type.
struct index_counts {
    std::uint32_t inserts = 0;
    std::uint32_t hits = 0;
    std::uint32_t declined = 0;
};

class index_rule {
  public:
    // Counts are halved past this many inserts and hits, so old behaviour fades.
    static constexpr std::uint32_t decay_at = 8192;
    // A field's first inserts are always made: there is nothing to judge by yet. Enough for a
    // field of a few hundred values (hosts, services) to show its hits before it is judged;
    // paid once per type, as what a field taught outlives resets.
    static constexpr std::uint32_t warmup_inserts = 256;
    // A declined field still looks up and indexes one value in this many.
    static constexpr std::uint32_t probe_every = 64;

    // selective: the adaptive policy (reset_policy::indexes_selectively()).
    explicit index_rule(bool selective) : selective_(selective) {}

    // For a record field's own string, once per value: literal or sample for a declined field
    // (each counted as declined), look_up otherwise.
    string_route decide(index_counts& c) const {
        if (!selective_ || earns(c)) return string_route::look_up;
        return next_is_sample(c) ? string_route::sample : string_route::literal;
    }

    // The lookup found the string (and its reference is sent).
    void on_hit(index_counts& c, string_route how) const {
        if (!selective_ || how == string_route::always) return;
        decay(c);
        ++c.hits;
    }

    // The lookup missed: whether to index the string (counted as an insert, made if it fits).
    bool on_miss(index_counts& c, string_route how) const {
        if (!selective_ || how == string_route::always) return true;
        if (how == string_route::look_up) {
            decay(c);
            // Decayed, or a value nested in the field (not decided): it may not earn now.
            if (!earns(c) && !next_is_sample(c)) return false;
        }
        ++c.inserts;
        return true;
    }

  private:
    // Every value indexed in the field has earned a quarter of a hit on average, or the field
    // is still in its warm-up.
    static bool earns(const index_counts& c) {
        return c.inserts < warmup_inserts || c.hits * 4 >= c.inserts;
    }
    // Counts one declined value; true for the probe.
    static bool next_is_sample(index_counts& c) { return ++c.declined % probe_every == 0; }
    static void decay(index_counts& c) {
        if (c.inserts + c.hits < decay_at) return;
        c.inserts /= 2;
        c.hits /= 2;
    }

    bool selective_;
};

}  // namespace objwire
