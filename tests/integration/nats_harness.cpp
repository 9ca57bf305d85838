#include "nats_harness.hpp"

#include <fcntl.h>
#include <nats/nats.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "daemon/sinks/nats_options.hpp"

namespace objwire::test {
namespace {

bool port_accepts(std::uint16_t port) {
    asio::io_context io;
    asio::ip::tcp::socket s(io);
    std::error_code ec;
    s.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
    return !ec;
}

}  // namespace

std::string nats_server_program() {
    for (const char* p :
         {"/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"})
        if (::access(p, X_OK) == 0) return p;
    return "";
}

std::uint16_t free_port() {
    asio::io_context io;
    asio::ip::tcp::acceptor a(io, {asio::ip::make_address("127.0.0.1"), 0});
    return a.local_endpoint().port();
}

bool nats_server::start() {
    std::filesystem::create_directories(options_.store_dir);
    std::vector<std::string> args{nats_server_program(),
                                  "-a",
                                  "127.0.0.1",
                                  "-p",
                                  std::to_string(options_.port),
                                  "-js",
                                  "-sd",
                                  options_.store_dir.string(),
                                  "-n",
                                  options_.name};
    if (options_.cluster_port) {
        std::string routes;
        for (auto r : options_.routes)
            routes += (routes.empty() ? "" : ",") + ("nats://127.0.0.1:" + std::to_string(r));
        args.insert(args.end(), {"--cluster_name", "objwire-test", "--cluster",
                                 "nats://127.0.0.1:" + std::to_string(options_.cluster_port),
                                 "--routes", routes});
    }
    const auto log_path = options_.store_dir / "nats-server.log";
    pid_ = ::fork();
    if (pid_ == 0) {
        int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            ::dup2(fd, 1);
            ::dup2(fd, 2);
        }
        std::vector<char*> argv;
        for (auto& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    if (pid_ < 0) return false;
    bool exited = false;
    const bool accepts = wait_until([&] {
        if (port_accepts(options_.port)) return true;
        int status = 0;
        return exited = ::waitpid(pid_, &status, WNOHANG) == pid_;
    });
    if (exited) pid_ = -1;
    return accepts && !exited;
}

void nats_server::kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
}

std::string nats_server::log() const {
    std::ifstream in(options_.store_dir / "nats-server.log");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

bool daemon_instance::start() {
    server_ = std::make_unique<daemon::server>(io_, settings_, daemon::standard_roles());
    if (server_->start()) return false;
    port_ = server_->local_endpoint().port();
    for (int i = 0; i < 2; ++i)
        threads_.emplace_back([this] { io_.run(); });
    return true;
}

void daemon_instance::stop() {
    if (!server_) return;
    server_->stop();
    for (auto& t : threads_)
        t.join();
    threads_.clear();
    server_.reset();
}

std::string publish_message(const std::string& urls, const std::string& subject,
                            std::span<const std::uint8_t> payload,
                            const std::vector<std::pair<std::string, std::string>>& headers) {
    natsConnection* nc = nullptr;
    jsCtx* js = nullptr;
    natsMsg* msg = nullptr;
    jsPubAck* ack = nullptr;
    natsStatus s = natsConnection_ConnectTo(&nc, urls.c_str());
    if (s == NATS_OK) s = natsConnection_JetStream(&js, nc, nullptr);
    if (s == NATS_OK)
        s = natsMsg_Create(&msg, subject.c_str(), nullptr,
                           reinterpret_cast<const char*>(payload.data()),
                           static_cast<int>(payload.size()));
    for (const auto& [name, value] : headers)
        if (s == NATS_OK) s = natsMsgHeader_Set(msg, name.c_str(), value.c_str());
    if (s == NATS_OK) s = js_PublishMsg(&ack, js, msg, nullptr, nullptr);
    std::string error = s == NATS_OK ? "" : std::string("publish: ") + natsStatus_GetText(s);
    if (ack) jsPubAck_Destroy(ack);
    if (msg) natsMsg_Destroy(msg);
    if (js) jsCtx_Destroy(js);
    if (nc) natsConnection_Destroy(nc);
    return error;
}

std::vector<stream_block> read_stream(const std::string& urls, const std::string& stream,
                                      std::string& error) {
    std::vector<stream_block> out;
    natsConnection* nc = nullptr;
    jsCtx* js = nullptr;
    natsStatus s = natsConnection_ConnectTo(&nc, urls.c_str());
    if (s == NATS_OK) s = natsConnection_JetStream(&js, nc, nullptr);
    if (s != NATS_OK) {
        error = std::string("cannot connect to ") + urls + ": " + natsStatus_GetText(s);
        if (nc) natsConnection_Destroy(nc);
        return out;
    }
    jsStreamInfo* si = nullptr;
    wait_until(  // a new leader is elected within seconds
        [&] {
            return (s = js_GetStreamInfo(&si, js, stream.c_str(), nullptr, nullptr)) == NATS_OK;
        },
        std::chrono::seconds(60), std::chrono::milliseconds(500));
    if (s != NATS_OK) {
        error = std::string("no stream info: ") + natsStatus_GetText(s);
    } else {
        const auto first = si->State.FirstSeq;
        const auto last = si->State.LastSeq;
        jsStreamInfo_Destroy(si);
        for (auto seq = first; seq <= last && seq > 0 && error.empty(); ++seq) {
            natsMsg* m = nullptr;
            wait_until(
                [&] {
                    return (s = js_GetMsg(&m, js, stream.c_str(), seq, nullptr, nullptr)) ==
                           NATS_OK;
                },
                std::chrono::seconds(10), std::chrono::milliseconds(200));
            if (s != NATS_OK) {
                error = "message " + std::to_string(seq) + ": " + natsStatus_GetText(s);
                break;
            }
            stream_block b;
            b.stream_sequence = seq;
            const char* id = nullptr;
            if (natsMsgHeader_Get(m, "Nats-Msg-Id", &id) == NATS_OK && id) b.msg_id = id;
            b.lane = b.msg_id.substr(0, b.msg_id.rfind(':'));
            b.stored_bytes = static_cast<std::size_t>(natsMsg_GetDataLength(m));
            const char* codec = nullptr;
            b.compressed = natsMsgHeader_Get(m, daemon::nats_codec_header, &codec) == NATS_OK;
            // Decompressed as the reader role does (daemon/sinks/nats_block_codec.hpp).
            frame_decompressor decompressor;
            byte_buffer block;
            std::string why;
            const bool unpacked =
                daemon::unpack_nats_msg(m, journal_max_payload, decompressor, block, why);
            const auto bytes = block.span();
            auto p = parse_journal_block(bytes);
            if (!unpacked) {
                error = "message " + std::to_string(seq) + " is refused: " + why;
            } else if (p.state != journal_block_parse::status::block || p.size != bytes.size()) {
                error = "message " + std::to_string(seq) +
                        " is not one whole journal block: " + p.error.message();
            } else {
                b.header = p.block.header;
                b.sender_id = std::string(p.block.sender_id);
                b.bytes.assign(bytes.begin(), bytes.end());
            }
            natsMsg_Destroy(m);
            out.push_back(std::move(b));
        }
    }
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
    return out;
}

void for_each_object(const std::vector<stream_block>& blocks,
                     const std::function<void(const std::string&, message&&)>& on_object,
                     std::string& error) {
    std::map<std::string, std::vector<const stream_block*>> lanes;
    for (const auto& b : blocks)
        lanes[b.lane.empty() ? b.sender_id : b.lane].push_back(&b);
    for (auto& [lane, list] : lanes) {
        std::sort(list.begin(), list.end(), [](const auto* a, const auto* b) {
            return a->header.first_offset < b->header.first_offset;
        });
        std::uint64_t next = 0;
        for (const auto* b : list) {
            if (b->header.first_offset != next) {
                error = "lane " + lane + ": block " + b->msg_id + " starts at offset " +
                        std::to_string(b->header.first_offset) + ", expected " +
                        std::to_string(next) +
                        (b->header.first_offset < next ? " (duplicate)" : " (gap)");
                return;
            }
            next += b->header.message_count;
            auto p = parse_journal_block(b->bytes);
            auto ec = decode_journal_block(
                p.block, [&](message&& m) { on_object(b->sender_id, std::move(m)); });
            if (ec) {
                error = "block " + b->msg_id + ": " + ec.message();
                return;
            }
        }
    }
}

}  // namespace objwire::test
