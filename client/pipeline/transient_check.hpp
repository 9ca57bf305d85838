// Whether the transient fields a run was given ([types.NAME] transient, OBJWIRE_TYPES_TRANSIENT,
// --transient) ever matched a record: a misspelt name is accepted as any other and would drop
// nothing, silently. Fed each record shape the run meets (name and field names, once per
// shape), it names at the end the ones that matched nothing, with the closest type and field
// seen.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "proto/value.hpp"

namespace objwire::client {

class transient_check {
  public:
    using transient_fields = std::map<std::string, std::vector<std::string>, std::less<>>;

    explicit transient_check(const transient_fields& transient);

    // Nothing to check: no transient field was given.
    bool empty() const { return unmatched_.empty() && matched_ == 0; }

    // A record shape of the run.
    void saw(const record_type& t);

    // One warning per transient TYPE.FIELD that no record of the run had, e.g.
    // `transient field Persn.agee matched no record read (did you mean Person.age?)`.
    std::vector<std::string> warnings() const;

  private:
    // "TYPE.FIELD" of each transient field not matched yet.
    std::set<std::string, std::less<>> unmatched_;
    std::size_t matched_ = 0;
    // "TYPE.FIELD" of the record fields seen, the candidates of "did you mean" (bounded: a run
    // of many shapes does not grow it past max_seen).
    std::set<std::string, std::less<>> seen_;
    static constexpr std::size_t max_seen = 4096;
};

}  // namespace objwire::client
