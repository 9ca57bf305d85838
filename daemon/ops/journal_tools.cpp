#include "daemon/ops/journal_tools.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "daemon/sinks/journal_sink.hpp"
#include "daemon/store/journal.hpp"
#include "daemon/store/journal_check.hpp"
#include "daemon/store/journal_checkpoint.hpp"
#include "daemon/store/journal_reader.hpp"
#include "proto/json_writer.hpp"

namespace objwire::daemon {
namespace {

constexpr int exit_ok = 0;
constexpr int exit_unreadable = 1;
constexpr int exit_lost = 2;

// The segments of a data directory, or an exit status with the reason printed.
int find_segments(const std::string& data_dir, std::vector<segment_info>& out) {
    std::error_code ec;
    if (!std::filesystem::is_directory(data_dir, ec)) {
        std::cerr << "objwired: " << data_dir << ": no such directory\n";
        return exit_unreadable;
    }
    out = list_segments(data_dir, ec);
    if (ec) {
        std::cerr << "objwired: " << data_dir << ": " << ec.message() << "\n";
        return exit_unreadable;
    }
    if (out.empty()) {
        std::cerr << "objwired: " << data_dir << ": no journal segments (journal-*.owj)\n";
        return exit_unreadable;
    }
    return exit_ok;
}

std::string range_text(const offset_gap& g) {
    return "offsets " + std::to_string(g.first) + " to " + std::to_string(g.end - 1);
}

}  // namespace

int dump_journal(const std::string& data_dir, std::uint64_t from) {
    std::vector<segment_info> segments;
    if (int rc = find_segments(data_dir, segments)) return rc;
    journal_reader reader(data_dir, from);
    message m;
    std::string out;
    std::size_t gaps_told = 0;
    const auto tell_gaps = [&] {
        for (; gaps_told < reader.gaps().size(); ++gaps_told) {
            const auto& g = reader.gaps()[gaps_told];
            std::cerr << "objwired: " << data_dir << ": gap: " << range_text(g.lost)
                      << " are lost (" << g.where << ")\n";
        }
    };
    while (reader.next(m)) {
        append_json(m, out);
        out.push_back('\n');
        if (out.size() >= (1u << 20)) {
            std::fwrite(out.data(), 1, out.size(), stdout);
            out.clear();
        }
        tell_gaps();
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    tell_gaps();
    if (reader.error()) {
        std::cerr << "objwired: " << data_dir << ": " << reader.error_detail() << "\n";
        return exit_unreadable;
    }
    if (reader.tail_bytes() > 0)
        std::cerr << "objwired: " << data_dir << ": " << reader.tail_bytes()
                  << " bytes at the end are not a whole block (an append in progress, or a torn "
                     "tail that objwired cuts when it next starts)\n";
    return reader.gaps().empty() ? exit_ok : exit_lost;
}

int verify_journal(const std::string& data_dir) {
    std::vector<segment_info> segments;
    if (int rc = find_segments(data_dir, segments)) return rc;
    std::uint64_t blocks = 0;
    std::uint64_t largest_block = 0;
    std::uint64_t lost = 0;
    bool overlap = false;
    segment_findings open_segment;
    segment_reader reader;
    for (std::size_t i = 0; i < segments.size(); ++i) {
        const auto& seg = segments[i];
        segment_findings f;
        std::error_code ec;
        if (i + 1 < segments.size()) {
            ec = check_closed_segment(seg, segments[i + 1].first_offset, true, f);
        } else if (!(ec = reader.open(seg.path, seg.first_offset))) {
            ec = walk_segment(reader, f);
            // The open segment may end in an append in progress; damage is what matters.
            if (!ec && f.bad_end)
                f.damage = std::to_string(seg.bytes - reader.good_end()) + " bytes at position " +
                           std::to_string(reader.good_end()) + " are not whole blocks (" +
                           reader.error().message() + ")";
        }
        if (ec) {
            std::cerr << "objwired: " << seg.path.string() << ": " << ec.message() << "\n";
            return exit_unreadable;
        }
        blocks += f.blocks;
        largest_block = std::max(largest_block, f.largest_block);
        overlap = overlap || f.overlap;
        if (!f.damage.empty())
            std::cerr << "objwired: " << seg.path.string() << ": " << f.damage << "\n";
        for (const auto& g : f.gaps) {
            lost += g.end - g.first;
            std::cerr << "objwired: " << seg.path.filename().string() << ": gap: " << range_text(g)
                      << " lost\n";
        }
    }
    const std::uint64_t end = reader.next_offset();
    for (const auto& g : read_gap_log(data_dir))
        std::cerr << "objwired: recorded gap: offsets " << g.first << " to " << g.end - 1 << " ("
                  << g.why << ")\n";
    bool damaged = false;
    const auto checkpoint = read_checkpoint(data_dir, damaged);
    if (damaged) std::cerr << "objwired: " << checkpoint_file_name << " is damaged\n";
    std::uint64_t known_end = end;
    for (const auto& g : read_gap_log(data_dir))
        known_end = std::max(known_end, g.end);
    const bool synced_lost = checkpoint && checkpoint->end_offset > known_end;
    if (synced_lost)
        std::cerr << "objwired: synced data lost: the checkpoint says offsets up to "
                  << checkpoint->end_offset - 1 << " were synced, the journal ends at " << end
                  << "\n";
    std::cout << data_dir << ": " << segments.size() << " segments, " << blocks
              << " blocks verified (the largest " << largest_block << " bytes), offsets "
              << segments.front().first_offset << " to " << end
              << (lost > 0 ? ", " + std::to_string(lost) + " offsets lost" : std::string()) << "\n";
    if (overlap) return exit_unreadable;
    return lost > 0 || synced_lost || damaged ? exit_lost : exit_ok;
}

int repair_journal(const config::daemon_settings& settings) {
    auto options = journal_options_from(settings);
    options.repair = true;
    std::error_code ec;
    auto j = journal::open(options, ec);
    if (!j) {
        std::cerr << "objwired: cannot repair the journal in " << settings.data_dir << ": "
                  << ec.message() << " (the log above says more)\n";
        return exit_unreadable;
    }
    const auto& r = j->recovery();
    std::cout << settings.data_dir << ": " << (r.repaired ? "repaired" : "nothing to repair")
              << ", next offset " << j->next_offset();
    if (!r.saved_to.empty()) std::cout << ", cut bytes kept in " << r.saved_to.string();
    std::cout << "\n";
    j->close();
    return exit_ok;
}

}  // namespace objwire::daemon
