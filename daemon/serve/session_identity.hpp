// The user a connection acts as, shared by its session, the role serving it and the server,
// which replaces the user on a reload (its permissions changed) or revokes it (the user was
// removed, or lost a permission the connection uses): readers check it per block and between
// rounds, senders per frame.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "daemon/serve/permissions.hpp"

namespace objwire::daemon {

class session_identity {
  public:
    explicit session_identity(std::shared_ptr<const user> u) : user_(std::move(u)) {}

    std::shared_ptr<const user> current() const {
        std::lock_guard lock(mutex_);
        return user_;
    }
    void replace(std::shared_ptr<const user> u) {
        std::lock_guard lock(mutex_);
        user_ = std::move(u);
    }
    // The connection must end with `reason` (kept: the first reason stands).
    void revoke(std::string reason) {
        std::lock_guard lock(mutex_);
        if (revoked_.empty()) revoked_ = std::move(reason);
    }
    // Why the connection must end, or "".
    std::string revoked() const {
        std::lock_guard lock(mutex_);
        return revoked_;
    }
    bool may_read(std::string_view sender_id) const {
        std::lock_guard lock(mutex_);
        return revoked_.empty() && user_->may.may_read(sender_id);
    }
    bool reads_everything() const {
        std::lock_guard lock(mutex_);
        return revoked_.empty() && user_->may.reads_everything();
    }

  private:
    mutable std::mutex mutex_;
    std::shared_ptr<const user> user_;
    std::string revoked_;
};

}  // namespace objwire::daemon
