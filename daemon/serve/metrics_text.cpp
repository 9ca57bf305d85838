#include "daemon/serve/metrics_text.hpp"

#include <fmt/format.h>

#include <chrono>

#include "daemon/serve/server.hpp"
#include "daemon/sinks/sink.hpp"
#include "daemon/telemetry/metric_writer.hpp"
#include "daemon/telemetry/process_metrics.hpp"
#include "daemon/telemetry/prometheus_text.hpp"

namespace objwire::daemon {
namespace {

void connections(metric_writer& x, server& srv, const metrics& m) {
    server_counters& c = srv.counters();
    x.one("objwire_connections_open", metric_type::gauge, "Connections open now.",
          c.connections_open.load());
    x.family("objwire_connections_by_role", metric_type::gauge,
             "Connections open now by what they do: handshake (before the hello), sender, "
             "reader, cursor (cursor commands), sender_list, stats; forward: a relay's own "
             "connections to its next hop (not in objwire_connections_open, which counts "
             "accepted ones).");
    for (std::size_t i = 0; i < connection_role_names.size(); ++i)
        x.sample("objwire_connections_by_role", m.connections_by_role[i].load(),
                 {{"role", connection_role_names[i]}});
    x.sample("objwire_connections_by_role", srv.sink().outgoing_connections(),
             {{"role", "forward"}});
    x.one("objwire_connections_total", metric_type::counter, "Connections accepted since start.",
          c.connections_total.load());
    x.one("objwire_connections_refused_total", metric_type::counter,
          "Connections refused at accept (server.max_connections and per-address limits).",
          c.connections_refused.load());
    x.one("objwire_accept_errors_total", metric_type::counter,
          "Failed accepts (out of file descriptors: accepting pauses, docs/SECURITY.md).",
          c.accept_errors.load());
}

void traffic(metric_writer& x, server_counters& c, const metrics& m) {
    x.one("objwire_objects_in_total", metric_type::counter,
          "Objects received from senders and stored.", c.objects_in.load());
    x.one("objwire_bytes_in_total", metric_type::counter, "Bytes read from connections.",
          c.bytes_in.load());
    x.one("objwire_frames_in_total", metric_type::counter, "Data frames received.",
          m.frames_in.load());
    x.one("objwire_frames_stored_whole_total", metric_type::counter,
          "Data frames the journal stored as they came (fresh frames: no re-encoding).",
          c.frames_stored_whole.load());
    x.one("objwire_objects_out_total", metric_type::counter, "Objects sent to readers.",
          m.objects_out.load());
    x.one("objwire_bytes_out_total", metric_type::counter,
          "Bytes written to connections (acks, replies, reader data, stats).", m.bytes_out.load());
    const auto links = m.link_estimates();
    // Prometheus' base unit is bytes: the estimator's bits per second, divided by 8.
    x.one("objwire_link_bandwidth_bytes_per_second", metric_type::gauge,
          "Estimated receive link bandwidth: the fastest open sender connection's estimate "
          "(0: none has one).",
          links.max_bps / 8);
    x.one("objwire_link_bandwidth_last_bytes_per_second", metric_type::gauge,
          "The latest link bandwidth estimate of any sender connection, open or closed.",
          links.last_bps / 8);
    x.one("objwire_link_bandwidth_connections", metric_type::gauge,
          "Open sender connections with a link bandwidth estimate.", links.connections);
}

// Capped at max_labelled_senders ids (daemon/telemetry/named_metrics.hpp); sender="" sums the rest.
void senders(metric_writer& x, const metrics& m) {
    const auto rows = m.senders.rows();
    const auto each = [&](const char* name, metric_type type, const char* help, auto value) {
        x.family(name, type, help);
        for (const auto& r : rows)
            x.sample(name, value(r), {{"sender", r.id}});
    };
    each("objwire_sender_objects_total", metric_type::counter,
         "Objects stored from each sender id (the 32 most recent ids; sender=\"\": anonymous "
         "senders and the other ids).",
         [](const sender_meter::row& r) { return r.objects; });
    each("objwire_sender_bytes_total", metric_type::counter,
         "Bytes stored in the sink from each sender id (as objwire_sender_objects_total).",
         [](const sender_meter::row& r) { return r.bytes; });
    each("objwire_sender_last_seen_timestamp_seconds", metric_type::gauge,
         "When each sender id last had objects stored, in Unix seconds.",
         [](const sender_meter::row& r) { return r.last_seen_seconds; });
}

void users(metric_writer& x, const metrics& m) {
    const auto each = [&](const char* name, const char* help, const sender_meter& meter,
                          auto value) {
        x.family(name, metric_type::counter, help);
        for (const auto& r : meter.rows())
            x.sample(name, value(r), {{"user", r.id}});
    };
    const auto objects = [](const sender_meter::row& r) { return r.objects; };
    const auto bytes = [](const sender_meter::row& r) { return r.bytes; };
    each("objwire_user_objects_in_total",
         "Objects stored from each user's streams (the 32 most recent users; user=\"\": the "
         "others).",
         m.users_in, objects);
    each("objwire_user_bytes_in_total", "Bytes stored in the sink from each user's streams.",
         m.users_in, bytes);
    each("objwire_user_objects_out_total", "Objects served to each user's readers.", m.users_out,
         objects);
    each("objwire_user_bytes_out_total", "Bytes written to each user's readers.", m.users_out,
         bytes);
}

void readers(metric_writer& x, const metrics& m) {
    x.one("objwire_readers_open", metric_type::gauge,
          "Readers being served now (journal or stream).", m.readers_open.load());
    x.one("objwire_readers_stalled", metric_type::gauge,
          "Readers whose batch of frames has waited over 50 ms for the peer to take it (they hold "
          "the batch and nothing more).",
          m.readers_stalled.load());
    x.one("objwire_reader_starts_running", metric_type::gauge,
          "Readers' starts searching the journal now (by time, by a sender's last N objects).",
          m.reader_starts_running.load());
    x.one("objwire_reader_starts_refused_total", metric_type::counter,
          "Readers refused at limits.max_reader_starts or limits.max_reader_starts_per_address.",
          m.reader_starts_refused.load());
    x.one("objwire_readers_held_bytes", metric_type::gauge,
          "Bytes readers' batches of frames and read-aheads hold now, all readers.",
          m.readers_held_bytes.load());
    x.one("objwire_readers_shared_bytes", metric_type::gauge,
          "Bytes of the blocks followers at the live end share (read once, written to each from "
          "the same bytes), and the shared read buffer.",
          m.readers_shared_bytes.load());
    x.one("objwire_readers_shared_blocks_total", metric_type::counter,
          "Block frames sent to followers from the blocks they share.",
          m.readers_shared_blocks.load());
    x.one("objwire_readers_shared_behind_total", metric_type::counter,
          "Followers that fell further behind the live end than the shared blocks reach, and "
          "read on their own from there.",
          m.readers_shared_behind.load());
    x.one("objwire_readers_slow_closed_total", metric_type::counter,
          "Readers closed because their peer took no bytes for limits.idle_timeout while data "
          "waited for it.",
          m.readers_slow_closed.load());
}

void compression(metric_writer& x, const metrics& m) {
    const auto packed = m.compressed_bytes.load();
    const auto raw = m.decompressed_bytes.load();
    x.one("objwire_frames_compressed_total", metric_type::counter,
          "Data frames that arrived compressed.", m.frames_compressed.load());
    x.one("objwire_compressed_bytes_total", metric_type::counter,
          "Payload bytes of compressed frames as received.", packed);
    x.one("objwire_decompressed_bytes_total", metric_type::counter,
          "Payload bytes of compressed frames after decompression.", raw);
    x.one("objwire_compression_ratio", metric_type::gauge,
          "Decompressed / compressed bytes over all compressed frames (0: none yet).",
          packed == 0 ? 0.0 : static_cast<double>(raw) / static_cast<double>(packed));
}

void tables(metric_writer& x, const metrics& m) {
    x.one("objwire_table_bytes", metric_type::gauge,
          "Bytes held by the back-reference tables of all open connections.", m.table_bytes.load());
    x.one("objwire_table_hits_total", metric_type::counter, "Values decoded from a back-reference.",
          m.table_hits.load());
    x.one("objwire_table_misses_total", metric_type::counter,
          "Values that came in full (not in the table).", m.table_misses.load());
    x.one("objwire_table_evictions_total", metric_type::counter,
          "Table entries evicted to stay within the table budget.", m.table_evictions.load());
    x.one("objwire_table_resets_total", metric_type::counter, "Table resets the senders asked for.",
          m.table_resets.load());
}

void latency(metric_writer& x, const metrics& m) {
    const auto h = m.ack_latency.read();
    x.histogram("objwire_ack_latency_seconds",
                "From the read that completed a frame to the write of its acknowledgement.",
                ack_latency_bounds_ns, h.cumulative, h.count, h.sum_ns);
}

void storage(metric_writer& x, server& srv, const metrics& m) {
    x.family("objwire_sink_bytes_total", metric_type::counter,
             "Bytes committed to the sink (journal blocks, or JSON text for the jsonl sink).");
    x.sample("objwire_sink_bytes_total", m.sink_bytes.load(), {{"sink", srv.settings().sink_kind}});
    x.one("objwire_held_bytes", metric_type::gauge,
          "Bytes read from senders whose objects are not yet durable, all connections.",
          m.held_bytes.load());
    x.one("objwire_held_bytes_peak", metric_type::gauge,
          "The most bytes one connection held not yet durable (capped near "
          "limits.max_buffered_bytes).",
          m.held_bytes_peak.load());
    // The sink's own figures: the journal's gaps, NATS publishing.
    srv.sink().write_metrics(x, m);
}

void errors(metric_writer& x, const metrics& m) {
    x.family("objwire_errors_total", metric_type::counter,
             "Connections ended or refused by an error, by kind (a proto_errc name, or "
             "store_failed / write_failed / io).");
    for (const auto& [kind, n] : m.errors())
        x.sample("objwire_errors_total", n, {{"kind", kind}});
    x.family("objwire_auth_refusals_total", metric_type::counter,
             "Hellos refused by [auth], by user (\"\": no user matched the credential) and "
             "reason (credential, or the permission lacked: send, read, admin).");
    for (const auto& [key, n] : m.refusals())
        x.sample("objwire_auth_refusals_total", n, {{"user", key.first}, {"reason", key.second}});
}

}  // namespace

std::vector<metric_family> collect_metrics(server& srv) {
    metric_writer x;
    auto& m = srv.metrics();
    connections(x, srv, m);
    traffic(x, srv.counters(), m);
    senders(x, m);
    users(x, m);
    readers(x, m);
    compression(x, m);
    tables(x, m);
    latency(x, m);
    storage(x, srv, m);
    errors(x, m);
    x.one("objwire_reloads_total", metric_type::counter, "Configuration reloads (SIGHUP) applied.",
          m.reloads.load());
    x.one("objwire_reload_failures_total", metric_type::counter,
          "Configuration reloads (SIGHUP) refused: the settings in force stayed.",
          m.reload_failures.load());
    x.one("objwire_start_time_seconds", metric_type::gauge,
          "When objwired started, in Unix seconds.", srv.start_time_seconds());
    write_process_metrics(x, read_process_figures(), srv.start_time_seconds());
    return x.take();
}

std::string render_prometheus(server& srv) {
    return prometheus_text(collect_metrics(srv));
}

}  // namespace objwire::daemon
