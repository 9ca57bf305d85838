#include "daemon_fixture.hpp"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <fstream>
#include <thread>

#include <objwire/connection.hpp>
#include "client/jsonl/jsonl_reader.hpp"
#include "daemon/store/journal_reader.hpp"

namespace objwire::test {
namespace {

// Keeps every formatted log line so a test can read what the daemon said.
class capture_sink final : public spdlog::sinks::base_sink<std::mutex> {
  public:
    std::string text() {
        std::lock_guard lock(mutex_);
        return text_;
    }

  protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        spdlog::memory_buf_t formatted;
        formatter_->format(msg, formatted);
        text_.append(formatted.data(), formatted.size());
    }
    void flush_() override {}

  private:
    std::string text_;
};

}  // namespace

void daemon_fixture::SetUp() {
    dir_ = std::filesystem::temp_directory_path() /
           ("objwire-it-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    settings_.listen_host = "127.0.0.1";
    settings_.listen_port = 0;
    settings_.data_dir = dir_.string();
    settings_.metrics_listen = "";  // a fixed port would collide; metrics tests pick :0
    auto sink = std::make_shared<capture_sink>();
    log_sink_ = sink;
    auto logger = std::make_shared<spdlog::logger>("objwired", sink);
    logger->set_level(spdlog::level::debug);
    spdlog::set_default_logger(logger);
}

void daemon_fixture::start() {
    io_.restart();  // after a stop() the context ran out of work
    server_ = std::make_unique<daemon::server>(io_, settings_, daemon::standard_roles());
    ASSERT_FALSE(server_->start());
    port_ = server_->local_endpoint().port();
    ASSERT_NE(port_, 0);
    for (int i = 0; i < 2; ++i)
        threads_.emplace_back([this] { io_.run(); });
}

void daemon_fixture::stop() {
    if (!server_) return;
    server_->stop();
    for (auto& t : threads_)
        t.join();
    threads_.clear();
    server_.reset();
}

void daemon_fixture::TearDown() {
    stop();
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("null"));
    std::filesystem::remove_all(dir_);
}

config::client_settings daemon_fixture::client_settings() const {
    config::client_settings s;
    s.to_host = "127.0.0.1";
    s.to_port = port_;
    return s;
}

std::vector<message> daemon_fixture::stored() const {
    std::vector<message> out;
    if (settings_.sink_kind == "journal") {
        daemon::journal_reader reader(dir_);
        message m;
        while (reader.next(m))
            out.push_back(m);
        EXPECT_FALSE(reader.error()) << reader.error_detail();
        EXPECT_EQ(reader.tail_bytes(), 0u) << "a partial block at the end of the journal";
        return out;
    }
    std::ifstream in(dir_ / settings_.sink_file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    jsonl_reader reader(text);
    message m;
    while (reader.next(m))
        out.push_back(m);
    EXPECT_FALSE(reader.error().has_value()) << reader.error()->message;
    return out;
}

std::string daemon_fixture::log_text() const {
    return std::static_pointer_cast<capture_sink>(log_sink_)->text();
}

int daemon_fixture::send_tagged_concurrently(int senders, int per_sender) {
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int s = 0; s < senders; ++s) {
        threads.emplace_back([&, s] {
            client::connection c(client_settings(), "sender-" + std::to_string(s));
            if (c.open()) return void(++failures);
            auto type = make_record_type("Tagged", {"sender", "i"});
            for (int i = 0; i < per_sender; ++i)
                if (c.send({make_record(type, {s, i}), {}})) return void(++failures);
            if (c.close() || c.stats().objects_acked != static_cast<std::uint64_t>(per_sender))
                ++failures;
        });
    }
    for (auto& t : threads)
        t.join();
    return failures.load();
}

void daemon_fixture::expect_tagged_in_order(int senders, int per_sender) const {
    std::vector<int> next(static_cast<std::size_t>(senders), 0);
    for (const auto& m : stored()) {
        const auto& r = m.root.get<record>();
        const auto s = static_cast<std::size_t>(r.fields[0].get<std::int64_t>());
        ASSERT_LT(s, next.size());
        ASSERT_EQ(r.fields[1].get<std::int64_t>(), next[s]++) << "sender " << s;
    }
    for (int s = 0; s < senders; ++s)
        EXPECT_EQ(next[static_cast<std::size_t>(s)], per_sender) << "sender " << s;
}

}  // namespace objwire::test
