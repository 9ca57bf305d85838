// Helpers shared by the JSON tests: an equality that tells -0.0 from 0.0 and NaN from NaN
// like the text does, and a printer for failures.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "client/jsonl/jsonl_reader.hpp"
#include "proto/json_writer.hpp"
#include "proto/value.hpp"

namespace objwire::test {

// Like operator== but doubles compare by bits (NaN equals NaN of any payload, -0.0 differs
// from 0.0) and record types by value.
inline bool same_value(const value& a, const value& b) {
    if (a.type() != b.type()) return false;
    switch (a.type()) {
        case value::kind::floating: {
            double x = a.get<double>(), y = b.get<double>();
            if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
            return std::memcmp(&x, &y, sizeof x) == 0;
        }
        case value::kind::list: {
            const auto &x = a.get<list>(), &y = b.get<list>();
            if (x.size() != y.size()) return false;
            for (std::size_t i = 0; i < x.size(); ++i)
                if (!same_value(x[i], y[i])) return false;
            return true;
        }
        case value::kind::map: {
            const auto &x = a.get<map>(), &y = b.get<map>();
            if (x.size() != y.size()) return false;
            for (std::size_t i = 0; i < x.size(); ++i)
                if (x[i].first != y[i].first || !same_value(x[i].second, y[i].second)) return false;
            return true;
        }
        case value::kind::record: {
            const auto &x = a.get<record>(), &y = b.get<record>();
            if (!x.type || !y.type) return x.type == y.type;
            if (*x.type != *y.type || x.fields.size() != y.fields.size()) return false;
            for (std::size_t i = 0; i < x.fields.size(); ++i)
                if (!same_value(x.fields[i], y.fields[i])) return false;
            return true;
        }
        default:
            return a == b;
    }
}

inline ::testing::AssertionResult same_message(const message& actual, const message& expected) {
    bool same =
        same_value(actual.root, expected.root) && actual.objects.size() == expected.objects.size();
    for (std::size_t i = 0; same && i < actual.objects.size(); ++i)
        same = same_value(actual.objects[i], expected.objects[i]);
    if (same) return ::testing::AssertionSuccess();
    // Print objects in their stored order too: to_json renumbers them.
    auto show = [](const message& m) {
        std::string s = to_json(m) + "\n    objects:";
        for (const auto& o : m.objects)
            s += " " + to_json(message{o, m.objects});
        return s;
    };
    return ::testing::AssertionFailure()
           << "\n  actual:   " << show(actual) << "\n  expected: " << show(expected);
}

// Reads the single message of `text`; fails the test on an error.
inline message read_one(std::string_view text) {
    jsonl_reader r(text);
    message m;
    bool ok = r.next(m);
    EXPECT_TRUE(ok) << "reading " << text << ": "
                    << (r.error() ? r.error()->message : std::string("no message"));
    return m;
}

}  // namespace objwire::test
