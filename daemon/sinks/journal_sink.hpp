// The journal sink (sink.kind = "journal", the default): each connection's stream encodes the
// objects of one read into a journal block and appends it with one write; the block counts as
// durable when the journal's fsync policy says so (daemon/store/journal.hpp).
#pragma once

#include <memory>
#include <string>

#include "daemon/sinks/sink.hpp"
#include "daemon/store/journal.hpp"
#include "daemon/telemetry/metrics.hpp"
#include "proto/journal_block.hpp"

namespace objwire::daemon {

class journal_sink final : public sink {
  public:
    // Opens the journal `settings` configure (recovering it), timing each segment sync.
    static std::unique_ptr<journal_sink> open(const config::daemon_settings& settings,
                                              std::error_code& ec);
    // `fsyncs`: where the journal's sync function records how long each sync took.
    journal_sink(std::unique_ptr<journal> j, std::shared_ptr<fsync_histogram> fsyncs)
        : fsyncs_(std::move(fsyncs)), journal_(std::move(j)) {}

    std::string describe() const override { return journal_->describe(); }
    bool takes_payloads() const override { return true; }
    std::unique_ptr<sink_stream> open_stream(const std::string& sender_id) override;
    std::error_code recall_senders(sender_registry& senders) override;
    // The journal's figures (objwire_journal_*: files, offsets, retention, syncs, the gap
    // log), and how far named cursors and live readers are behind it.
    void write_metrics(metric_writer& out, const metrics& m) const override;
    // For readers, which serve its blocks (daemon/roles/reader_service.cpp).
    daemon::journal& stored_journal() { return *journal_; }

  private:
    std::shared_ptr<fsync_histogram> fsyncs_;  // before journal_: its last sync records here
    std::unique_ptr<journal> journal_;
    // The buffers and encoders of the blocks streams are writing: a stream takes them when a
    // batch opens and gives them back once the batch is written, so a connection between
    // batches holds neither (1,000 connections share what a few use at once).
    journal_block_pools blocks_;
};

// The journal options `settings` configure (journal.*, in server.data_dir).
journal_options journal_options_from(const config::daemon_settings& settings);

}  // namespace objwire::daemon
