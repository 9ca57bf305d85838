#include "client/cli/bench_follower.hpp"

#include <algorithm>
#include <chrono>

#include <objwire/connection.hpp>
#include "proto/frame.hpp"

namespace objwire::client {
namespace {

// How often a wait for the daemon looks at the stop flag.
constexpr std::chrono::milliseconds stop_poll{200};

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// The hello of a follower from the durable end, within the settings' read limits as the
// library's reader says it.
read_client::options follower_options(const config::client_settings& s, std::string name,
                                      std::string token) {
    read_client::options c;
    c.greeting.client_name = std::move(name);
    c.greeting.auth_token = std::move(token);
    c.greeting.follow = true;
    c.greeting.read_at_end = true;
    c.max_frame_bytes = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(c.max_frame_bytes, s.read_max_block_bytes + frame_header_size));
    c.max_block_objects = s.read_max_block_objects;
    return c;
}

}  // namespace

bench_follower::bench_follower(config::client_settings settings, std::string client_name)
    : settings_(std::move(settings)),
      client_name_(std::move(client_name)),
      socket_(io_),
      link_(socket_) {}

bench_follower::~bench_follower() {
    std::error_code ignored;
    socket_.close(ignored);
}

std::error_code bench_follower::open(std::string& why) {
    std::string token;
    if (!read_token_file(settings_, token, why)) return client_errc::connect_failed;
    if (auto ec = link_.connect(settings_, why)) return ec;
    core_.emplace(follower_options(settings_, client_name_, std::move(token)));
    std::error_code ec;
    for (auto out = core_->output().span(); !out.empty() && !ec;) {
        out = out.subspan(link_.write_some(out, ec));
        if (ec == asio::error::would_block || ec == asio::error::try_again)
            ec = link_.wait_writable(settings_.connect_timeout);
    }
    core_->output().clear();
    if (ec) {
        why = "cannot send the hello: " + ec.message();
        return client_errc::connection_lost;
    }
    for (;;) {
        const auto e = core_->next();
        if (e == read_client::event::welcome) return {};
        if (e == read_client::event::failed) {
            why = core_->error_detail();
            return core_->error();
        }
        if (e != read_client::event::need_more) {
            why = "the daemon answered the hello without a welcome";
            return client_errc::connection_lost;
        }
        if (why = read_more(settings_.connect_timeout); !why.empty())
            return client_errc::connection_lost;
    }
}

std::string bench_follower::read_more(std::chrono::milliseconds wait) {
    std::error_code ec;
    const std::size_t got = link_.read_some(core_->prepare(), wait, ec);
    if (ec == client_errc::timed_out) return {};
    if (ec == asio::error::eof) return "the daemon closed the connection";
    if (ec) return "connection lost: " + ec.message();
    core_->commit(got);
    return {};
}

std::string bench_follower::follow(delivery_tally& tally, std::uint64_t total,
                                   const std::atomic<bool>& stop) {
    tally.start_at(start());
    while (tally.delivered() < total && tally.error().empty()) {
        switch (core_->next()) {
            case read_client::event::block: {
                const auto& b = core_->block();
                tally.block(b.sender_id, b.header.first_offset, b.header.message_count, now_ns());
                break;
            }
            case read_client::event::gap:
                tally.gap(core_->gap().first, core_->gap().end);
                break;
            case read_client::event::need_more:
                if (stop.load()) return {};
                if (auto why = read_more(stop_poll); !why.empty()) return why;
                break;
            case read_client::event::failed:
                return core_->error_detail().empty() ? core_->error().message()
                                                     : core_->error_detail();
            default:
                return "the daemon ended the follow";
        }
    }
    return tally.error();
}

void bench_follower::close() {
    if (!socket_.is_open()) return;
    std::error_code ignored;
    if (core_ && core_->current() == read_client::state::streaming) {
        core_->goodbye();
        link_.write_some(core_->output().span(), ignored);  // closing says the same
        core_->output().clear();
    }
    link_.shutdown();
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
}

}  // namespace objwire::client
