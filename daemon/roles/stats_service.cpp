// The stats role: a hello with role stats gets a welcome, one stats frame of the daemon's
// metrics as typed families (docs/PROTOCOL.md section 1.3; the same figures as GET /metrics),
// and a goodbye, in one write; then the connection closes. `objwire stats` is its client.
#include <spdlog/spdlog.h>

#include <asio/experimental/as_tuple.hpp>

#include "daemon/roles/standard_roles.hpp"
#include "daemon/serve/metrics_text.hpp"
#include "daemon/serve/server.hpp"
#include "proto/frame.hpp"
#include "proto/metric_families.hpp"

namespace objwire::daemon {

asio::awaitable<void> serve_stats(server& srv, peer_stream& stream, const std::string& peer,
                                  const hello&) {
    const auto slot = mark_slot(srv, stream, slot_role::stats);
    welcome w;
    w.server_name = "objwired";
    w.sink = srv.sink().describe();
    byte_buffer payload;
    encode_welcome(w, payload);
    byte_buffer out;
    append_frame(out, frame_kind::welcome, 0, payload.span());
    byte_buffer stats;
    encode_metric_families(collect_metrics(srv), stats);
    append_frame(out, frame_kind::stats, 0, stats.span());
    append_frame(out, frame_kind::goodbye, 0, {});
    auto [ec, n] = co_await asio::async_write(stream, asio::buffer(out.data(), out.size()),
                                              asio::experimental::as_tuple(asio::use_awaitable));
    srv.metrics().bytes_out += n;
    if (ec)
        spdlog::debug("{}: stats not sent: {}", peer, ec.message());
    else
        spdlog::debug("{}: sent stats ({} bytes)", peer, stats.size());
}

}  // namespace objwire::daemon
