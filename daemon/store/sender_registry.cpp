#include "daemon/store/sender_registry.hpp"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <utility>

namespace objwire::daemon {

stream_fence fence_of(std::string_view resume_token) {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(resume_token.data()), resume_token.size(),
           digest);
    stream_fence f;
    std::memcpy(f.data(), digest, f.size());
    return f;
}

std::string new_resume_token() {
    unsigned char bytes[16];
    if (RAND_bytes(bytes, sizeof bytes) != 1) {
        // OpenSSL's generator failed (no entropy source): the kernel's, via random_device.
        std::random_device rd;
        for (auto& b : bytes)
            b = static_cast<unsigned char>(rd());
    }
    static constexpr char hex[] = "0123456789abcdef";
    std::string token;
    for (unsigned char b : bytes) {
        token.push_back(hex[b >> 4]);
        token.push_back(hex[b & 15]);
    }
    return token;
}

void sender_registry::remember(const std::string& id, std::uint64_t last_sequence,
                               const journal_stream_record* record) {
    std::lock_guard lock(mutex_);
    auto& e = entries_[id];
    if (last_sequence < e.stream.last_durable) return;
    e.stream.last_durable = last_sequence;
    if (record) {
        e.stream.objects = record->objects;
        e.stream.digest = record->digest;
        e.fence = record->fence;
    }
}

void sender_registry::own(const std::string& id, const stream_fence& fence) {
    std::lock_guard lock(mutex_);
    entries_[id].fence = fence;
}

std::uint64_t sender_registry::last_durable(const std::string& id) const {
    return state(id).last_durable;
}

stream_state sender_registry::state(const std::string& id) const {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(id);
    return it == entries_.end() ? stream_state{} : it->second.stream;
}

std::size_t sender_registry::size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

std::vector<std::function<void()>> sender_registry::take_waiters_if_free(entry& e) {
    if (e.owner != 0 || e.in_flight != 0) return {};
    return std::exchange(e.waiting, {});
}

void sender_registry::batch_committed(const std::string& id) {
    std::lock_guard lock(mutex_);
    ++entries_[id].in_flight;
}

void sender_registry::batch_done(const std::string& id, std::uint64_t last_sequence, bool durable,
                                 std::uint64_t objects, std::uint64_t digest) {
    std::vector<std::function<void()>> wake;
    {
        std::lock_guard lock(mutex_);
        auto& e = entries_[id];
        if (e.in_flight > 0) --e.in_flight;
        if (durable && last_sequence >= e.stream.last_durable) {
            e.stream.last_durable = last_sequence;
            e.stream.objects = objects;
            e.stream.digest = digest;
        }
        wake = take_waiters_if_free(e);
    }
    for (auto& w : wake)
        w();
}

sender_registry::fence_change sender_registry::fence_change_of(const entry& e,
                                                               const stream_fence& now) {
    if (e.fence == now) return fence_change::same;
    const bool seen = e.fence || e.stream.last_durable != 0 || e.stream.objects != 0;
    return seen ? fence_change::replaced : fence_change::new_id;
}

sender_registry::claim sender_registry::try_claim(const std::string& id, std::uint64_t owner,
                                                  const std::optional<stream_fence>& resume,
                                                  const stream_fence& fresh,
                                                  std::function<void()> stop,
                                                  std::function<void()> on_free,
                                                  fence_change* change) {
    std::function<void()> stop_holder;
    {
        std::lock_guard lock(mutex_);
        auto& e = entries_[id];
        // A stream that presents a token resumes only while it still owns the id. An id whose
        // owner is not known (a daemon that forgot it) takes the token it is shown.
        if (resume && e.fence && *e.fence != *resume) return claim::fenced;
        if (e.owner == 0 && e.in_flight == 0) {
            e.owner = owner;
            e.stop_owner = std::move(stop);
            e.stop_asked = false;
            const stream_fence now = resume ? *resume : fresh;
            if (change) *change = fence_change_of(e, now);
            e.fence = now;
            return claim::claimed;
        }
        e.waiting.push_back(std::move(on_free));
        // Only the owning stream may stop the connection that holds the id (its own, broken
        // one); a new stream waits for it to end by itself.
        if (resume && e.owner != 0 && !e.stop_asked) {
            e.stop_asked = true;
            stop_holder = e.stop_owner;
        }
    }
    if (stop_holder) stop_holder();
    return claim::waiting;
}

bool sender_registry::held(const std::string& id) const {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(id);
    return it != entries_.end() && it->second.owner != 0;
}

void sender_registry::release(const std::string& id, std::uint64_t owner) {
    std::vector<std::function<void()>> wake;
    {
        std::lock_guard lock(mutex_);
        auto it = entries_.find(id);
        if (it == entries_.end() || it->second.owner != owner) return;
        it->second.owner = 0;
        it->second.stop_owner = nullptr;
        wake = take_waiters_if_free(it->second);
    }
    for (auto& w : wake)
        w();
}

}  // namespace objwire::daemon
