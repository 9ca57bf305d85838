#include "daemon/sink.hpp"

#include <spdlog/spdlog.h>

#include "daemon/journal_sink.hpp"
#include "daemon/jsonl_sink.hpp"

namespace objwire::daemon {

std::unique_ptr<sink> open_sink(const config::daemon_settings& settings, std::error_code& ec) {
    ec.clear();
    if (settings.sink_kind == "jsonl") {
        auto s = std::make_unique<jsonl_sink>(std::filesystem::path(settings.data_dir) /
                                              settings.sink_file);
        if ((ec = s->error())) {
            spdlog::error("cannot open '{}': {}", s->path().string(), ec.message());
            return nullptr;
        }
        return s;
    }
    auto j = journal::open(journal_options_from(settings), ec);
    if (!j) {
        spdlog::error("cannot open the journal in '{}': {}", settings.data_dir, ec.message());
        return nullptr;
    }
    return std::make_unique<journal_sink>(std::move(j));
}

}  // namespace objwire::daemon
