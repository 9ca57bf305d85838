// One descriptor held in reserve (on /dev/null) so that, out of descriptors, the accept loop
// can still take a connection from the backlog and tell its peer why it is refused
// (daemon/serve/accept_backoff.hpp): give it up, accept, refuse, take it again. Taking it
// again fails while the refused socket lingers; the loop tries again before each accept.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <utility>

namespace objwire::daemon {

class spare_descriptor {
  public:
    spare_descriptor() { take(); }
    ~spare_descriptor() { give_up(); }
    spare_descriptor(const spare_descriptor&) = delete;
    spare_descriptor& operator=(const spare_descriptor&) = delete;

    bool held() const { return fd_ >= 0; }
    // Opens the reserve unless held; false when no descriptor is free.
    bool take() {
        if (fd_ < 0) fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        return held();
    }
    // Frees its descriptor for the next open or accept of this process.
    void give_up() {
        if (fd_ >= 0) ::close(std::exchange(fd_, -1));
    }

  private:
    int fd_ = -1;
};

}  // namespace objwire::daemon
