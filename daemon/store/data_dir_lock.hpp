// The data directory's writer lock: one objwired (or a repair) at a time writes a data
// directory. An exclusive flock on `objwired.lock` in the directory, held while this object
// lives and released by the kernel however the process ends, so a crash never leaves a stale
// lock. The file holds the holder's pid, for the message a second writer gets. Readers (the
// offline journal tools) never take it.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

namespace objwire::daemon {

class data_dir_lock {
  public:
    data_dir_lock() = default;
    ~data_dir_lock();
    data_dir_lock(data_dir_lock&& other) noexcept;
    data_dir_lock& operator=(data_dir_lock&& other) noexcept;
    data_dir_lock(const data_dir_lock&) = delete;
    data_dir_lock& operator=(const data_dir_lock&) = delete;

    // Takes the lock without waiting. On failure `why` names the directory and, when another
    // process holds it, that process's pid; ec is resource_unavailable_try_again then.
    static data_dir_lock acquire(const std::filesystem::path& dir, std::error_code& ec,
                                 std::string& why);
    bool held() const { return fd_ >= 0; }

  private:
    int fd_ = -1;
};

inline constexpr const char* data_dir_lock_file = "objwired.lock";

}  // namespace objwire::daemon
