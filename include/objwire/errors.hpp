// Errors of the client library itself, as std::error_code in the category "objwire.client".
// A daemon's refusal and a peer's protocol error come in the category "objwire.proto"
// (proto/errors.hpp); last_error() gives the reason for people in both cases.
#pragma once

#include <system_error>

namespace objwire::client {

enum class client_errc {
    connect_failed = 1,
    timed_out,
    connection_lost,
    not_open,
    input_mismatch,   // a rerun's input is not the one its sender id stored (skip_stored)
    invalid_options,  // a field of client::options out of range (check_options)
    // options::max_async_sends asynchronous sends started and not completed: this one is not
    // queued (async_send, async_send_many)
    too_many_in_flight,
    interrupted,  // connection::interrupt() ended a wait for the daemon
};
const std::error_category& client_category() noexcept;
inline std::error_code make_error_code(client_errc e) noexcept {
    return {static_cast<int>(e), client_category()};
}

}  // namespace objwire::client

template <>
struct std::is_error_code_enum<objwire::client::client_errc> : std::true_type {};
