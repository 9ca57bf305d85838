#include "daemon/sinks/sink.hpp"

#include <spdlog/spdlog.h>

#include "daemon/sinks/forward_sink.hpp"
#include "daemon/sinks/journal_sink.hpp"
#include "daemon/sinks/jsonl_sink.hpp"
#include "daemon/sinks/nats_sink.hpp"

namespace objwire::daemon {

std::unique_ptr<sink> open_sink(const config::daemon_settings& settings, std::error_code& ec,
                                readable_store& readable) {
    ec.clear();
    readable = {};
    if (settings.sink_kind == "jsonl") {
        jsonl_options o;
        o.file = settings.sink_file == "-"
                     ? std::filesystem::path("-")
                     : std::filesystem::path(settings.data_dir) / settings.sink_file;
        o.rotate_bytes = settings.sink_jsonl_rotate_bytes;
        o.keep = settings.sink_jsonl_keep;
        auto s = std::make_unique<jsonl_sink>(std::move(o));
        if ((ec = s->error())) {
            spdlog::error("cannot open '{}': {}", s->path().string(), ec.message());
            return nullptr;
        }
        return s;
    }
    if (settings.sink_kind == "nats") {
        auto s = nats_sink::open(nats_options_from(settings), ec);
        readable.stream = s.get();
        return s;
    }
    if (settings.sink_kind == "forward") return forward_sink::open(settings, ec);
    auto s = journal_sink::open(settings, ec);
    if (s) readable.journal = &s->stored_journal();
    return s;
}

}  // namespace objwire::daemon
