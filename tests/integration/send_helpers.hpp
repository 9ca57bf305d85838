// What an honest client does in the tests of hostile peers: opens, sends a stream and closes.
#pragma once

#include <gtest/gtest.h>

#include <objwire/connection.hpp>

#include "client/workloads/workloads.hpp"

namespace objwire::test {

// Sends the first `n` person objects over the open connection `c` and closes it; a step that
// fails is the failure, with the connection's last error.
inline ::testing::AssertionResult send_people_and_close(client::connection& c, int n) {
    auto w = workloads::make("person");
    message m;
    for (int i = 0; i < n; ++i) {
        w->next(m);
        if (c.send(m))
            return ::testing::AssertionFailure() << "send " << i << ": " << c.last_error();
    }
    if (c.close()) return ::testing::AssertionFailure() << "close: " << c.last_error();
    return ::testing::AssertionSuccess();
}

}  // namespace objwire::test
