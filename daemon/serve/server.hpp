// objwired's network side: accepts connections on the configured address and runs one session
// coroutine per connection, each on its own strand. stop() is graceful: no new connections,
// every session finishes the frames it already received, acknowledges them and closes.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <functional>
#include <memory>
#include <set>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "config/settings.hpp"
#include "daemon/serve/access_token.hpp"
#include "daemon/serve/address_limiter.hpp"
#include "daemon/serve/credential_throttle.hpp"
#include "daemon/serve/credit_share.hpp"
#include "daemon/serve/fence_log.hpp"
#include "daemon/serve/pending_hellos.hpp"
#include "daemon/serve/permissions.hpp"
#include "daemon/serve/refusal.hpp"
#include "daemon/serve/roles.hpp"
#include "daemon/serve/spare_descriptor.hpp"
#include "daemon/serve/start_slots.hpp"
#include "daemon/serve/store_allowance.hpp"
#include "daemon/serve/table_budget_pool.hpp"
#include "daemon/serve/tls_context.hpp"
#include "daemon/sinks/sink.hpp"
#include "daemon/store/sender_registry.hpp"
#include "daemon/telemetry/metrics.hpp"
#include "proto/buffer_pool.hpp"
#include "proto/control.hpp"

namespace objwire::daemon {

class session;
class metrics_http;

// Failures a test makes happen at chosen points, to check that the daemon survives them. Only
// a test build of the daemon installs one; objwired itself runs with none.
class fault_injection {
  public:
    virtual ~fault_injection() = default;
    // Right after a session's hello is admitted; what it throws ends that session.
    virtual void after_admit() = 0;
};

struct server_counters {
    std::atomic<std::uint64_t> connections_total{0};
    std::atomic<std::uint64_t> connections_open{0};
    std::atomic<std::uint64_t> connections_refused{0};
    std::atomic<std::uint64_t> accept_errors{0};
    // Objects stored: counted when their batch is durable in the sink.
    std::atomic<std::uint64_t> objects_in{0};
    std::atomic<std::uint64_t> frames_in{0};
    // Fresh frames the sink took as they came, without encoding their objects again.
    std::atomic<std::uint64_t> frames_stored_whole{0};
    std::atomic<std::uint64_t> bytes_in{0};
    std::atomic<std::uint64_t> protocol_errors{0};
};

class server {
  public:
    // `roles`: the services reader and stats connections are handed to after their hello
    // (daemon/roles/standard_roles.hpp); a role with none is refused.
    server(asio::io_context& io, config::daemon_settings settings, role_table roles);
    ~server();

    // Creates the data directory, opens the sink (recovering the journal), binds and starts
    // accepting.
    std::error_code start();
    asio::ip::tcp::endpoint local_endpoint() const;
    // Graceful stop; safe to call from any thread, more than once.
    void stop();
    // After stop(), when the grace is over: closes every connection still open; their
    // sessions end at once. Any thread.
    void abort();
    // Calls fn (posted on the server's io_context) once no connection is left: now if none
    // is open, else when the last one ends. One waiter; a later call replaces it.
    void when_idle(std::function<void()> fn);
    // Installs the failures to inject (tests only); before start().
    void inject_faults(std::shared_ptr<fault_injection> faults) { faults_ = std::move(faults); }
    // Whether stop() was called: services that wait (followers) end when it is.
    bool stopping() const { return stopping_; }

    // The settings in force: those it started with, and after reload() the live keys of the
    // reloaded file. A snapshot stays valid for the server's lifetime, so a session may keep
    // the reference it took when it began.
    const config::daemon_settings& settings() const { return *live_settings_.load(); }
    // SIGHUP: applies what `next` changes that can change live, logs each changed key and
    // names those that need a restart (daemon/serve/server_reload.cpp). Any thread.
    void reload(const config::daemon_settings& next);
    // Settings snapshots held: the first and one per reload that applied a change.
    std::size_t settings_snapshots() const { return reloaded_.size() + 1; }
    daemon::metrics& metrics() { return metrics_; }
    // The metrics endpoint's address (unspecified when metrics.listen is "" or failed).
    asio::ip::tcp::endpoint metrics_endpoint() const;
    double start_time_seconds() const { return start_time_seconds_; }
    daemon::sink& sink() { return *sink_; }
    // What readers can read of the sink's store (none for JSON lines and forward).
    const readable_store& readable() const { return readable_; }
    // Per sender id: the last durable frame and the one live connection (resume).
    sender_registry& senders() { return senders_; }
    // Where a new owner of a sender id is written before its welcome (null: a shared sink,
    // whose stored records are the only account every daemon sees).
    fence_log* fences() { return fences_ ? &*fences_ : nullptr; }
    server_counters& counters() { return counters_; }
    table_budget_pool& table_budgets() { return table_budgets_; }
    // A session took or left the sender role: when the share fell far enough
    // (credit_notices), every session is asked to tell its sender its new credit.
    void senders_changed();
    // Read blocks and inflate buffers of sender connections, kept while they wait for bytes
    // (docs/OPERATIONS.md, "Memory per connection").
    buffer_pool& read_buffers() { return read_buffers_; }
    sender_store_quota& store_quota() { return store_quota_; }  // limits.sender_stored_quota
    // Slots per source address (limits.max_connections_per_address), and which roles hold them.
    address_limiter& addresses() { return addresses_; }
    // Readers' journal searches running (limits.max_reader_starts(_per_address)).
    start_slots& reader_starts() { return reader_starts_; }
    const role_table& roles() const { return roles_; }
    // Whether a peer whose hello this is may go on ([auth], daemon/serve/access.cpp), and as
    // which user (`who`); on refusal the error for the peer, with `why` for it and the log.
    // `address`: the peer's, whose failed credentials are slowed (credential_throttle);
    // `certificate`: its verified client certificate's names, a credential without a token.
    std::error_code check_access(const hello& h, const std::string& address,
                                 const certificate_names& certificate, std::string& why,
                                 std::shared_ptr<const user>& who);
    // The users in force (replaced by a reload).
    std::shared_ptr<const user_directory> users() const;
    // The TLS context every connection runs over, or null when [tls] is off.
    asio::ssl::context* tls_context() const { return tls_.get(); }

  private:
    friend class session;
    // Reads [auth] token_file and builds the [tls] context; an error stops start().
    std::error_code load_access();
    // The users of [auth] from `s` (files read now); nullopt with `why` when one is unusable.
    static std::optional<user_directory> load_users(const config::daemon_settings& s,
                                                    std::string& why);
    // After a reload: sessions whose user is gone or lost a permission they use are ended,
    // the others see their user's new permissions (daemon/serve/server_reload.cpp).
    void apply_users(std::shared_ptr<const user_directory> next);
    void reload_users(const config::daemon_settings& next);
    // Whether `address` has failed too many credentials to have one checked now (`why`).
    bool throttled(const std::string& address, std::string& why);
    void note_failed_credential(const std::string& address);
    asio::awaitable<void> accept_loop();
    // Checks the connection caps; a refused socket gets its reason (daemon/serve/refusal.hpp).
    bool admit_connection(asio::ip::tcp::socket& socket, const asio::ip::tcp::endpoint& remote,
                          const std::string& address);
    void start_session(asio::ip::tcp::socket socket, const std::string& address);
    // Counts a new session as waiting for its hello and sheds those the caps put out
    // (limits.max_pending_hellos, limits.max_pending_hellos_per_address).
    void wait_for_hello(const std::shared_ptr<session>& s, const std::string& address);
    // The session's hello came, or it ended: it waits no more (idempotent).
    void hello_done(std::uint64_t pending_id);
    // Out of descriptors (daemon/serve/accept_backoff.hpp): the oldest connection waiting for
    // its hello is closed; or the spare descriptor is spent to accept a peer and tell it why
    // it is refused.
    void shed_oldest_waiting();
    // Sheds one and waits (at most accept_backoff::shed_wait) for its descriptor to be free.
    asio::awaitable<void> shed_oldest_waiting(asio::steady_timer& pause);
    // With none waiting for its hello: the sender idle longest, if idle at least
    // limits.shed_idle_after (daemon/serve/idle_shedding.hpp); false when there is none.
    bool shed_idle_sender();
    bool has_idle_sender();
    // Waits (at most accept_backoff::shed_wait) for a shed connection's descriptor.
    asio::awaitable<void> wait_for_descriptor(asio::steady_timer& pause);
    void refuse_with_spare();
    void forget(const std::shared_ptr<session>& s);
    // Serves metrics.listen if set; a port that is taken is logged, not fatal.
    void start_metrics_http(const std::string& listen);
    void stop_metrics_http();

    asio::io_context& io_;
    config::daemon_settings settings_;
    role_table roles_;
    asio::ip::tcp::acceptor acceptor_;
    sender_registry senders_;  // before sink_: the sink's last callbacks report to it
    std::optional<fence_log> fences_;
    std::unique_ptr<daemon::sink> sink_;
    readable_store readable_;  // parts of *sink_
    server_counters counters_;
    table_budget_pool table_budgets_;
    // At most 32 MiB kept (128 blocks of the default 256 KiB), none larger than 4 MiB (a block
    // grown for a rare large frame is freed).
    buffer_pool read_buffers_{32u << 20, 4u << 20};
    sender_store_quota store_quota_;
    address_limiter addresses_;  // limits.max_connections_per_address
    start_slots reader_starts_;  // limits.max_reader_starts(_per_address)
    pending_hellos pending_;     // limits.max_pending_hellos(_per_address)
    // The sessions pending_ counts, by its id, so a shed one can be closed (sessions_mutex_).
    std::unordered_map<std::uint64_t, std::weak_ptr<session>> waiting_hello_;
    refusals refusals_;
    spare_descriptor spare_;  // the accept loop's reserve (accept_loop only)
    std::mutex sessions_mutex_;
    std::set<std::shared_ptr<session>> sessions_;
    credit_notices credit_notices_;  // under sessions_mutex_
    std::function<void()> on_idle_;  // when_idle's waiter, under sessions_mutex_
    std::atomic<bool> stopping_{false};
    daemon::metrics metrics_;
    std::shared_ptr<metrics_http> metrics_http_;  // guarded by reload_mutex_
    mutable std::mutex reload_mutex_;
    std::vector<std::unique_ptr<const config::daemon_settings>> reloaded_;  // every snapshot
    std::atomic<const config::daemon_settings*> live_settings_{&settings_};
    double start_time_seconds_ = 0;
    mutable std::mutex users_mutex_;
    std::shared_ptr<const user_directory> users_;  // [auth]; empty: everyone may do everything
    std::shared_ptr<const user> anonymous_;        // who everyone is then
    credential_throttle throttle_;                 // users_mutex_
    std::unique_ptr<asio::ssl::context> tls_;
    std::shared_ptr<fault_injection> faults_;  // none unless a test installs them
};

}  // namespace objwire::daemon
