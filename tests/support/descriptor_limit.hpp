// Tests that hold thousands of sockets (both ends of each connection, when the daemon runs in
// the test's process) raise their own descriptor limit first, within the hard limit.
#pragma once

#include <gtest/gtest.h>
#include <sys/resource.h>

namespace objwire::test {

// Raises this process's soft RLIMIT_NOFILE to at least `needed`; fails the test when the hard
// limit is lower.
inline void raise_descriptor_limit(rlim_t needed) {
    rlimit fds{};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &fds), 0);
    if (fds.rlim_cur >= needed) return;
    ASSERT_GE(fds.rlim_max, needed) << "raise the hard limit of open files (ulimit -Hn)";
    fds.rlim_cur = needed;
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &fds), 0);
}

}  // namespace objwire::test
