// The only translation unit that includes toml++: parses TOML text into the flat entry list
// of toml_document.hpp, and reads config files.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <system_error>
#include <type_traits>

#include <toml++/toml.h>

#include "config/toml_document.hpp"
#include "config/toml_mistakes.hpp"

namespace objwire::config::detail {
namespace {

source_pos to_pos(const toml::source_region& region) {
    return {region.begin.line, region.begin.column};
}

toml_type type_of(const toml::node& node) {
    switch (node.type()) {
        case toml::node_type::table:
            return toml_type::table;
        case toml::node_type::array:
            return toml_type::array;
        case toml::node_type::string:
            return toml_type::string;
        case toml::node_type::integer:
            return toml_type::integer;
        case toml::node_type::floating_point:
            return toml_type::floating;
        case toml::node_type::boolean:
            return toml_type::boolean;
        default:
            return toml_type::date_time;
    }
}

std::string display_of(const toml::node& node) {
    if (const auto* s = node.as_string()) return quote_toml(s->get());
    std::string out;
    node.visit([&](const auto& v) {
        using node_t = std::remove_cvref_t<decltype(v)>;
        if constexpr (toml::is_value<node_t>) {
            std::ostringstream os;
            os << v;
            out = os.str();
        }
    });
    return out;
}

// No key of either schema is deeper than `table.key`; apply.cpp reports a table at its
// first unknown level and never looks inside it. Entries deeper than this are not listed, so a
// key of 20,000 dotted parts (a 40 KB file) costs 8 entries, not 200 million path copies.
constexpr std::size_t max_listed_depth = 8;

void flatten(const toml::table& table, std::vector<std::string>& path,
             std::vector<toml_entry>& out) {
    for (const auto& [key, node] : table) {
        path.emplace_back(key.str());
        toml_entry entry;
        entry.path = path;
        entry.type = type_of(node);
        entry.key_pos = to_pos(key.source());
        entry.value_pos = to_pos(node.source());
        if (entry.key_pos.line == 0) entry.key_pos = entry.value_pos;
        if (const auto* s = node.as_string()) entry.string_value = s->get();
        if (const auto* i = node.as_integer()) entry.integer_value = i->get();
        if (const auto* b = node.as_boolean()) entry.bool_value = b->get();
        entry.display = display_of(node);
        if (const auto* array = node.as_array()) {
            for (const auto& element : *array) {
                toml_item item{type_of(element), to_pos(element.source()), {}, display_of(element)};
                if (const auto* s = element.as_string()) item.string_value = s->get();
                entry.items.push_back(std::move(item));
            }
        }
        out.push_back(std::move(entry));
        if (const auto* sub = node.as_table(); sub && path.size() < max_listed_depth)
            flatten(*sub, path, out);
        path.pop_back();
    }
}

// The document as a table, or its syntax error at SOURCE:LINE:COLUMN, explained.
outcome<toml::table> parse_toml_table(std::string_view text, std::string_view source_name) {
    try {
        return toml::parse(text, source_name);
    } catch (const toml::parse_error& e) {
        const auto pos = to_pos(e.source());
        const auto explained = explain_syntax_error(text, pos.line, pos.column, e.description());
        return error{std::string(source_name) + ":" + std::to_string(explained.line) + ":" +
                     std::to_string(explained.column) + ": " + explained.message};
    }
}

}  // namespace

outcome<std::vector<toml_entry>> parse_toml_document(std::string_view text,
                                                     std::string_view source_name) {
    auto root = parse_toml_table(text, source_name);
    if (!root) return root.error();
    std::vector<toml_entry> entries;
    std::vector<std::string> path;
    flatten(*root, path, entries);
    return entries;
}

outcome<std::string> read_text_file(const std::filesystem::path& path) {
    const auto fail = [&](std::string_view reason) {
        return error{path.string() + ": cannot read config file: " + std::string(reason)};
    };
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return fail("it is a directory");
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                         &std::fclose);
    if (!file) return fail(std::strerror(errno));
    std::string text;
    char block[8192];
    std::size_t n = 0;
    while ((n = std::fread(block, 1, sizeof block, file.get())) > 0)
        text.append(block, n);
    if (std::ferror(file.get())) return fail(std::strerror(errno));
    return text;
}

std::string quote_toml(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    out += '"';
    return out;
}

}  // namespace objwire::config::detail

namespace objwire::config {
namespace {

using detail::to_pos;

// Names the shared token's and the open daemon's user take (docs/SECURITY.md).
constexpr std::string_view reserved_user_names[] = {"shared", "anonymous"};
constexpr std::string_view user_keys[] = {"name", "token_file", "token_sha256", "cert_subject",
                                          "send", "read",       "admin"};

bool valid_user_name(std::string_view name) {
    if (name.empty() || name.size() > 64) return false;
    for (const char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!ok) return false;
    }
    return true;
}

bool is_sha256_hex(std::string_view text) {
    if (text.size() != 64) return false;
    for (const char c : text)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    return true;
}

class user_reader {
  public:
    explicit user_reader(std::string_view source) : source_(source) {}

    void fail(const toml::source_region& where, const std::string& what) {
        const auto pos = to_pos(where);
        if (!errors_.empty()) errors_ += '\n';
        errors_ += source_ + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) +
                   ": " + what;
    }

    std::optional<std::string> text(const toml::table& t, std::string_view key) {
        const auto* node = t.get(key);
        if (node == nullptr) return std::string();
        if (const auto* s = node->as_string()) return s->get();
        fail(node->source(), "[[auth.users]] " + std::string(key) + " must be a string");
        return std::nullopt;
    }

    std::vector<std::string> patterns(const toml::table& t, std::string_view key) {
        std::vector<std::string> out;
        const auto* node = t.get(key);
        if (node == nullptr) return out;
        const auto* array = node->as_array();
        if (array == nullptr) {
            fail(node->source(), "[[auth.users]] " + std::string(key) +
                                     " must be an array of sender-id patterns, like [\"app-*\"]");
            return out;
        }
        for (const auto& element : *array) {
            const auto* s = element.as_string();
            if (s == nullptr || s->get().empty()) {
                fail(element.source(),
                     "[[auth.users]] " + std::string(key) + ": each pattern is a non-empty string");
                continue;
            }
            out.push_back(s->get());
        }
        return out;
    }

    void read_user(const toml::table& t, std::vector<auth_user>& users) {
        for (const auto& [key, node] : t)
            if (std::find(std::begin(user_keys), std::end(user_keys), key.str()) ==
                std::end(user_keys))
                fail(key.source(), "unknown key '" + std::string(key.str()) +
                                       "' in [[auth.users]] (its keys: name, token_file, "
                                       "token_sha256, cert_subject, send, read, admin)");
        auth_user u;
        const auto pos = to_pos(t.source());
        u.place = source_ + ":" + std::to_string(pos.line);
        auto name = text(t, "name");
        auto token_file = text(t, "token_file");
        auto token_sha256 = text(t, "token_sha256");
        auto cert_subject = text(t, "cert_subject");
        if (!name || !token_file || !token_sha256 || !cert_subject) return;
        u.name = *name;
        u.token_file = *token_file;
        u.token_sha256 = *token_sha256;
        u.cert_subject = *cert_subject;
        u.send = patterns(t, "send");
        u.read = patterns(t, "read");
        if (const auto* admin = t.get("admin")) {
            if (const auto* b = admin->as_boolean())
                u.admin = b->get();
            else
                fail(admin->source(), "[[auth.users]] admin must be true or false");
        }
        check(t, u, users);
        users.push_back(std::move(u));
    }

    void check(const toml::table& t, const auth_user& u, const std::vector<auth_user>& users) {
        if (!valid_user_name(u.name)) {
            fail(t.source(), "[[auth.users]] needs a name of 1 to 64 of A-Z a-z 0-9 . _ -");
            return;
        }
        if (std::find(std::begin(reserved_user_names), std::end(reserved_user_names), u.name) !=
            std::end(reserved_user_names))
            fail(t.source(), "user name '" + u.name +
                                 "' is reserved (\"shared\" is auth.token_file's user, "
                                 "\"anonymous\" a daemon without auth)");
        for (const auto& other : users)
            if (other.name == u.name)
                fail(t.source(),
                     "user '" + u.name + "' is defined twice (first at " + other.place + ")");
        if (u.token_file.empty() && u.token_sha256.empty() && u.cert_subject.empty())
            fail(t.source(), "user '" + u.name +
                                 "' has no credential: set token_file, token_sha256 or "
                                 "cert_subject");
        if (!u.token_file.empty() && !u.token_sha256.empty())
            fail(t.source(), "user '" + u.name +
                                 "': token_file and token_sha256 are one "
                                 "credential; set only one");
        if (!u.token_sha256.empty() && !is_sha256_hex(u.token_sha256))
            fail(t.source(), "user '" + u.name +
                                 "': token_sha256 must be 64 hex digits (sha256sum of the "
                                 "token, without a newline)");
    }

    std::optional<error> result() const {
        if (errors_.empty()) return std::nullopt;
        return error{errors_};
    }

  private:
    std::string source_;
    std::string errors_;
};

}  // namespace

outcome<std::vector<auth_user>> parse_auth_users(std::string_view text,
                                                 std::string_view source_name) {
    auto parsed = detail::parse_toml_table(text, source_name);
    if (!parsed) return parsed.error();
    const toml::table& root = *parsed;
    std::vector<auth_user> users;
    const auto* auth = root.get_as<toml::table>("auth");
    const auto* node = auth ? auth->get("users") : nullptr;
    if (node == nullptr) return users;
    user_reader reader(source_name);
    const auto* array = node->as_array();
    if (array == nullptr || !array->is_array_of_tables()) {
        reader.fail(node->source(), "auth.users must be tables: [[auth.users]]");
        return *reader.result();
    }
    for (const auto& element : *array)
        reader.read_user(*element.as_table(), users);
    if (auto e = reader.result()) return *e;
    return users;
}

}  // namespace objwire::config
