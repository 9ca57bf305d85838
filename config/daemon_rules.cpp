// What objwired's start needs beyond each key's own rule: keys that only work together, and
// the files the settings name. One function, so `objwired --check-config`, `objwire config
// check --daemon`, the start and a reload refuse the same settings with the same words.
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "config/daemon_rules.hpp"
#include "config/toml_document.hpp"

namespace objwire::config {
namespace {

struct named_file {
    const std::string& path;
    const char* key;
    const char* env;
    bool needed;  // only some sinks read theirs
};

void check_pair(std::vector<error>& out, const daemon_settings& s) {
    const bool cert = !s.tls_cert_file.empty();
    const bool key = !s.tls_key_file.empty();
    if (cert && !key)
        out.push_back(
            {"tls.key_file: must be set when tls.cert_file is set (the PEM private key "
             "of the certificate; OBJWIRE_TLS_KEY_FILE)"});
    if (key && !cert)
        out.push_back(
            {"tls.cert_file: must be set when tls.key_file is set (the PEM "
             "certificate chain; OBJWIRE_TLS_CERT_FILE)"});
    if (!s.tls_client_ca_file.empty() && !cert)
        out.push_back(
            {"tls.client_ca_file: needs TLS: set tls.cert_file and tls.key_file too "
             "(OBJWIRE_TLS_CERT_FILE, OBJWIRE_TLS_KEY_FILE)"});
}

// `path` is `dir` or inside it, both absolute and without "." or ".." parts left.
bool is_within(const std::filesystem::path& path, const std::filesystem::path& dir) {
    auto p = path.begin();
    for (auto d = dir.begin(); d != dir.end(); ++d, ++p) {
        if (d->empty()) continue;  // the "" a trailing '/' leaves
        if (p == path.end() || *p != *d) return false;
    }
    return true;
}

// Where `key` is first named in `text` as a whole key ("tls.cert_file", not inside
// "tls.cert_file_x"), or npos.
std::size_t key_position(std::string_view text, std::string_view key) {
    const auto part_of_key = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
    };
    for (auto at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
        const auto end = at + key.size();
        if ((at == 0 || !part_of_key(text[at - 1])) &&
            (end == text.size() || !part_of_key(text[end])))
            return at;
    }
    return std::string_view::npos;
}

}  // namespace

std::string place_in_file(std::string_view problem, std::string_view path,
                          std::span<const key_line> lines) {
    const key_line* first = nullptr;
    auto first_at = std::string_view::npos;
    for (const auto& line : lines) {
        const auto at = key_position(problem, line.key);
        if (at < first_at) {
            first_at = at;
            first = &line;
        }
    }
    if (first == nullptr) return std::string(problem);
    return std::string(path) + ":" + std::to_string(first->line) + ": " + std::string(problem);
}

std::vector<std::string> place_in_file(std::vector<std::string> problems,
                                       const std::filesystem::path& path) {
    const auto text = detail::read_text_file(path);
    if (!text) return problems;
    const auto lines = key_lines(*text, path.string());
    if (!lines) return problems;
    for (auto& p : problems)
        p = place_in_file(p, path.string(), *lines);
    return problems;
}

std::string data_dir_outside_state_directory(const daemon_settings& s,
                                             std::string_view state_directory) {
    if (state_directory.empty()) return "";
    // The unit's working directory is /: a relative data_dir lands there.
    const auto data = (std::filesystem::path("/") / s.data_dir).lexically_normal();
    std::string_view rest = state_directory;
    while (!rest.empty()) {
        const auto colon = rest.find(':');
        const auto one = rest.substr(0, colon);
        if (!one.empty() && is_within(data, std::filesystem::path(one).lexically_normal()))
            return "";
        rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    }
    return "server.data_dir = \"" + s.data_dir + "\" is outside the unit's state directory " +
           std::string(state_directory) +
           ": the unit's ProtectSystem=strict keeps it read-only unless a drop-in adds "
           "ReadWritePaths=" +
           data.string() + " (the shipped data_dir is /var/lib/objwire)";
}

std::string readable_file_problem(const std::string& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) return "does not exist";
    if (std::filesystem::is_directory(status)) return "is a directory, not a file";
    if (::access(path.c_str(), R_OK) != 0) return std::strerror(errno);
    return "";
}

std::vector<error> check_daemon_settings(const daemon_settings& s,
                                         const file_problem_function& file_problem) {
    std::vector<error> out;
    if (s.sink_kind == "forward" && s.forward_to.empty())
        out.push_back(
            {"forward.to: must be set when sink.kind = \"forward\" (the next hop's "
             "\"HOST:PORT\"; OBJWIRE_FORWARD_TO)"});
    check_pair(out, s);
    const named_file files[] = {
        {s.auth_token_file, "auth.token_file", "OBJWIRE_AUTH_TOKEN_FILE", true},
        {s.auth_users_file, "auth.users_file", "OBJWIRE_AUTH_USERS_FILE", true},
        {s.metrics_bearer_token_file, "metrics.bearer_token_file",
         "OBJWIRE_METRICS_BEARER_TOKEN_FILE", true},
        {s.tls_cert_file, "tls.cert_file", "OBJWIRE_TLS_CERT_FILE", true},
        {s.tls_key_file, "tls.key_file", "OBJWIRE_TLS_KEY_FILE", true},
        {s.tls_client_ca_file, "tls.client_ca_file", "OBJWIRE_TLS_CLIENT_CA_FILE", true},
        {s.forward_client_config, "forward.client_config", "OBJWIRE_FORWARD_CLIENT_CONFIG",
         s.sink_kind == "forward"},
        {s.nats_credentials_file, "nats.credentials_file", "OBJWIRE_NATS_CREDENTIALS_FILE",
         s.sink_kind == "nats"},
    };
    for (const auto& f : files) {
        if (f.path.empty() || !f.needed) continue;
        const auto problem = file_problem(f.path);
        if (!problem.empty())
            out.push_back({std::string(f.key) + ": '" + f.path + "' " + problem +
                           " (objwired reads it at start, as its own user; " + f.env + ")"});
    }
    for (const auto& u : s.auth_users) {
        if (u.token_file.empty()) continue;
        const auto problem = file_problem(u.token_file);
        if (!problem.empty())
            out.push_back({u.place + ": token_file of user '" + u.name + "': '" + u.token_file +
                           "' " + problem + " (objwired reads it at start and on SIGHUP)"});
    }
    return out;
}

}  // namespace objwire::config
