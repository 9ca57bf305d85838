// Encoding helpers for the typed tests: a described struct and its value message through two
// encoders, and the decoded message back.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include <objwire/typed.hpp>
#include "proto/decoder.hpp"
#include "proto/encoder.hpp"

namespace typed_test {

inline std::vector<objwire::message> decode_all(const objwire::byte_buffer& bytes) {
    objwire::stream_decoder d(objwire::decoder_limits{});
    std::vector<objwire::message> out;
    const auto ec =
        d.decode_payload(bytes.span(), [&](objwire::message&& m) { out.push_back(std::move(m)); });
    EXPECT_FALSE(ec) << ec.message();
    return out;
}

// One object through the typed path and its to_message() through the value path, each on its
// own encoder (state carries from call to call, as on a connection).
struct twin_encoders {
    explicit twin_encoders(objwire::encoder_options o = {}) : typed(o), values(o) {}
    objwire::stream_encoder typed;
    objwire::stream_encoder values;
    objwire::byte_buffer typed_out;
    objwire::byte_buffer values_out;

    template <class T>
    void add(const T& object) {
        const auto a = typed.encode(objwire::typed::record_source<T>(object), typed_out);
        const auto b = values.encode(objwire::typed::to_message(object), values_out);
        ASSERT_EQ(a, b);
    }
    bool same() const {
        return typed_out.size() == values_out.size() &&
               std::equal(typed_out.span().begin(), typed_out.span().end(),
                          values_out.span().begin());
    }
};

}  // namespace typed_test
