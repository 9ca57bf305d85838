// The forward sink (sink.kind = "forward"): a relay. Each connection to this daemon gets a
// connection of its own to the next objwired (forward.to), made with the client library and
// the hop's own client settings (forward.client_config: buffering, compression, reset, resume,
// TLS). A committed batch is sent on by a worker thread, and is durable here - so acknowledged
// upstream - only once the next hop acknowledged all of its objects.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <chrono>
#include <mutex>

#include "config/settings.hpp"
#include "daemon/sinks/hop_health.hpp"
#include "daemon/sinks/sink.hpp"

namespace objwire::daemon {

class hop_reaper;

// The hop's health, shared by the sink (new streams) and every stream's worker (connects).
class hop_monitor {
  public:
    explicit hop_monitor(std::string hop);
    hop_health::admission admit();
    void on_failure(const std::string& why);
    void on_success();

  private:
    void log(hop_health::clock::time_point now);  // with mutex_ held
    std::string hop_;
    std::mutex mutex_;
    hop_health health_;
};

class forward_sink final : public sink {
  public:
    // Loads the hop's client settings; nullptr (with `ec` and a log line) when they are bad.
    static std::unique_ptr<forward_sink> open(const config::daemon_settings& settings,
                                              std::error_code& ec);

    std::string describe() const override;
    bool holds_messages() const override { return true; }
    ~forward_sink() override;  // cuts the hop connections still open, joins their workers
    std::unique_ptr<sink_stream> open_stream(const std::string& sender_id) override;
    std::unique_ptr<sink_stream> open_relayed_stream(
        const std::string& sender_id, const std::vector<std::string>& relay_path) override;
    std::string relay_id() const override { return relay_id_; }
    std::string refuse_stream() override;
    std::int64_t outgoing_connections() const override { return open_hops_->load(); }

  private:
    forward_sink(config::client_settings hop, std::string via);

    config::client_settings hop_;
    std::string via_;       // appended to sender ids: "SENDER@via"
    std::string relay_id_;  // this relay in relay paths: via and a random tag
    std::shared_ptr<hop_monitor> monitor_;
    // Streams whose connection to the hop is open, shared with the streams: a session may
    // close its stream after the server let go of the sink.
    std::shared_ptr<std::atomic<std::int64_t>> open_hops_ =
        std::make_shared<std::atomic<std::int64_t>>(0);
    // Cuts and joins the hop connections of streams gone or abandoned; shared with the streams,
    // which a session may close after the server let go of the sink.
    std::shared_ptr<hop_reaper> reaper_;
};

}  // namespace objwire::daemon
