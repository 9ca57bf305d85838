// client::reader, the public class: each call goes to the implementation
// (client/lib/reader_core.hpp), which the public header only points to.
#include <objwire/reader.hpp>

#include "client/lib/reader_core.hpp"
#include "config/client_options.hpp"

namespace objwire::client {

reader::reader(const options& opts, read_options read)
    : core_(std::make_unique<reader_core>(config::from_options(opts), std::move(read))) {
    if (auto why = check_options(opts); !why.empty()) core_->refuse_options(std::move(why));
}
reader::~reader() = default;
reader::reader(reader&&) noexcept = default;
reader& reader::operator=(reader&&) noexcept = default;

std::error_code reader::open() {
    return core_->open();
}
bool reader::next(stored_message& out) {
    return core_->next(out);
}
std::size_t reader::ready() const {
    return core_->ready();
}
void reader::close() {
    core_->close();
}
bool reader::is_open() const {
    return core_->is_open();
}
std::error_code reader::ack(std::uint64_t next_offset) {
    return core_->ack(next_offset);
}
std::error_code reader::finish_cursor(std::uint64_t next_offset) {
    return core_->finish_cursor(next_offset);
}
std::uint64_t reader::start() const {
    return core_->start();
}
std::uint64_t reader::resume_at() const {
    return core_->resume_at();
}
std::uint64_t reader::reconnections() const {
    return core_->reconnections();
}
bool reader::stopped() const {
    return core_->stopped();
}
const cursor_list& reader::cursors() const {
    return core_->cursors();
}
const sender_list& reader::senders() const {
    return core_->senders();
}
std::error_code reader::error() const {
    return core_->error();
}
const std::string& reader::last_error() const {
    return core_->last_error();
}
const welcome& reader::server() const {
    return core_->server();
}
bool reader::offsets_count_blocks() const {
    return core_->offsets_count_blocks();
}
bool reader::finished() const {
    return core_->finished();
}
const read_stats& reader::stats() const {
    return core_->stats();
}
const std::vector<lost_offsets>& reader::gaps() const {
    return core_->gaps();
}
void reader::start_next(next_completion done) {
    core_->start_next(std::move(done));
}

}  // namespace objwire::client
