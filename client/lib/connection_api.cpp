// client::connection, the public class: each call goes to the implementation
// (client/lib/connection_core.hpp), which the public header only points to.
#include <objwire/connection.hpp>

#include "client/lib/connection_core.hpp"
#include "config/client_options.hpp"

namespace objwire::client {

connection::connection(const options& opts, std::string client_name)
    : core_(std::make_unique<connection_core>(config::from_options(opts), std::move(client_name))) {
    if (auto why = check_options(opts); !why.empty()) core_->refuse_options(std::move(why));
}
connection::~connection() = default;
connection::connection(connection&&) noexcept = default;
connection& connection::operator=(connection&&) noexcept = default;

std::error_code connection::open() {
    return core_->open();
}
std::error_code connection::open(std::chrono::milliseconds retry_for) {
    return core_->open(retry_for);
}
std::error_code connection::send(const message& m) {
    return core_->send(m);
}
std::error_code connection::send(const typed_source& m) {
    return core_->send(m);
}
std::error_code connection::flush() {
    return core_->flush();
}
std::error_code connection::flush(std::chrono::milliseconds timeout) {
    return core_->flush(timeout);
}
void connection::set_send_timeout(std::chrono::milliseconds timeout) {
    core_->set_send_timeout(timeout);
}
std::uint64_t connection::unacknowledged() const {
    return core_->unacknowledged();
}
std::error_code connection::close() {
    return core_->close();
}
std::error_code connection::poll(std::chrono::milliseconds wait) {
    return core_->poll(wait);
}
void connection::interrupt() noexcept {
    core_->interrupt();
}
void connection::interrupt_now() noexcept {
    core_->interrupt_now();
}
void connection::on_reconnect(std::function<void(const reconnect_attempt&)> notice) {
    core_->on_reconnect(std::move(notice));
}

const welcome& connection::server() const {
    return core_->server();
}
const table_stats& connection::table() const {
    return core_->table();
}
connection_stats connection::stats() const {
    return core_->stats();
}
compression_stats connection::compression() const {
    return core_->compression();
}
std::string connection::last_error() const {
    return core_->last_error();
}
bool connection::is_open() const {
    return core_->is_open();
}
const std::string& connection::sender_id() const {
    return core_->sender_id();
}
void connection::skip_stored(bool on) {
    core_->skip_stored(on);
}
std::uint64_t connection::stored_objects() const {
    return core_->stored_objects();
}
std::uint64_t connection::skipped_objects() const {
    return core_->skipped_objects();
}

void connection::start_send(message m, completion done) {
    core_->start_send(std::move(m), std::move(done));
}
void connection::start_send(std::shared_ptr<const typed_source> source,
                            std::function<std::string()> refused_at, completion done) {
    core_->start_send(std::move(source), std::move(refused_at), std::move(done));
}
void connection::start_send_many(std::size_t count, batch_step step, completion done) {
    core_->start_send_many(count, std::move(step), std::move(done));
}
void connection::start_flush(completion done) {
    core_->start_flush(std::move(done));
}
void connection::start_close(completion done) {
    core_->start_close(std::move(done));
}
void connection::name_refused_field(const std::string& path) {
    core_->name_refused_field(path);
}

}  // namespace objwire::client
