#include "daemon/journal_sink.hpp"

#include <chrono>

#include "proto/journal_block.hpp"

namespace objwire::daemon {
namespace {

class journal_stream final : public sink_stream {
  public:
    journal_stream(journal& j, std::string sender_id) : journal_(j), block_(std::move(sender_id)) {}

    std::error_code add(const message& m) override { return block_.add(m); }
    bool empty() const override { return block_.empty(); }
    std::size_t bytes() const override { return block_.bytes(); }
    std::error_code commit(std::uint64_t first_sequence, std::uint64_t last_sequence,
                           durable_handler on_durable) override {
        const auto now = journal_.options().clock().time_since_epoch();
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now).count();
        auto bytes = block_.finish(first_sequence, last_sequence, static_cast<std::uint64_t>(ms));
        std::error_code ec;
        journal_.append(bytes, std::move(on_durable), ec);
        block_.clear();
        return ec;
    }

  private:
    journal& journal_;
    journal_block_writer block_;
};

}  // namespace

std::unique_ptr<sink_stream> journal_sink::open_stream(const std::string& sender_id) {
    return std::make_unique<journal_stream>(*journal_, sender_id);
}

journal_options journal_options_from(const config::daemon_settings& s) {
    journal_options o;
    o.dir = s.data_dir;
    o.fsync = parse_fsync_policy(s.journal_fsync).value_or(fsync_policy::interval);
    o.fsync_interval = s.journal_fsync_interval;
    o.segment_bytes = s.journal_segment_bytes;
    o.retention_bytes = s.journal_retention_bytes;
    o.retention_age = s.journal_retention_age;
    return o;
}

}  // namespace objwire::daemon
