// The person workload's record as a described struct (include/objwire/typed.hpp), for the
// msgpack peer's --struct receiver and its tests: same record name and fields as the workload's
// `Person`, the members spelled as the field names since they are matched by name.
#pragma once

#include <cstdint>
#include <string>

#include <objwire/typed.hpp>

namespace typed_person {

struct Person {
    std::string firstName;
    std::string surname;
    std::int64_t age = 0;
};
BOOST_DESCRIBE_STRUCT(Person, (), (firstName, surname, age))

// The struct of one of the workload's messages.
inline Person from_record(const objwire::message& m) {
    const auto& f = m.root.get<objwire::record>().fields;
    return {f[0].get<std::string>(), f[1].get<std::string>(), f[2].get<std::int64_t>()};
}

}  // namespace typed_person
