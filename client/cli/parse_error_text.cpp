#include "client/cli/parse_error_text.hpp"

#include <charconv>
#include <string_view>
#include <vector>

#include "config/suggest.hpp"

namespace objwire::client {
namespace {

// The subcommand the parse reached last: its flags are the ones the user was typing.
const CLI::App& deepest_parsed(const CLI::App& app) {
    const CLI::App* at = &app;
    for (int depth = 0; depth < 8; ++depth) {
        const auto parsed = at->get_subcommands();
        if (parsed.empty()) break;
        at = parsed.back();
    }
    return *at;
}

// "objwire", "objwire read", "objwire cursor set".
std::string command_path(const CLI::App& app) {
    std::string path = app.get_name();
    for (const CLI::App* p = app.get_parent(); p != nullptr; p = p->get_parent())
        path = p->get_name() + " " + path;
    return path;
}

std::vector<std::string> flag_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::Option* opt : app.get_options()) {
        for (const auto& l : opt->get_lnames())
            names.push_back("--" + l);
        for (const auto& s : opt->get_snames())
            names.push_back("-" + s);
    }
    return names;
}

std::vector<std::string> command_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        names.push_back(sub->get_name());
    return names;
}

std::string did_you_mean(std::string_view wrong, const std::vector<std::string>& candidates) {
    const std::vector<std::string_view> views(candidates.begin(), candidates.end());
    const auto near = config::suggest(wrong, views);
    return near ? "; did you mean " + std::string(*near) + "?" : std::string();
}

std::string joined(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words)
        out += (out.empty() ? "" : ", ") + w;
    return out;
}

// Words the parser did not take: an unknown flag, a misspelt command, one argument too many.
std::string extras_text(const CLI::App& at, const std::string& who) {
    const auto extras = at.remaining(true);
    if (extras.empty()) return who + ": unexpected arguments";
    const std::string& word = extras.front();
    if (word.size() > 1 && word.front() == '-') {
        const std::string name = word.substr(0, word.find('='));
        return who + ": unknown flag " + name + did_you_mean(name, flag_names(at)) + " (" +
               command_path(at) + " --help lists the flags)";
    }
    const auto commands = command_names(at);
    if (!commands.empty()) {
        return who + ": unknown command '" + word + "'" + did_you_mean(word, commands) + " (" +
               command_path(at) + " --help lists the commands)";
    }
    return who + ": unexpected argument '" + word + "'" +
           (extras.size() > 1 ? " (and " + std::to_string(extras.size() - 1) + " more)" : "");
}

// CLI11: "A subcommand is required" - with a word given, a misspelt command.
std::string missing_command_text(const CLI::App& at, const std::string& who) {
    if (!at.remaining(true).empty()) return extras_text(at, who);
    return who + ": a command is required: " + joined(command_names(at)) + " (" + command_path(at) +
           " --help)";
}

// CLI11: "--from excludes --since", "--raw-type requires --raw".
std::string pair_text(const std::string& what, std::string_view verb, std::string_view says) {
    const auto at = what.find(verb);
    if (at == std::string::npos) return what;
    return what.substr(0, at) + std::string(says) + what.substr(at + verb.size());
}

}  // namespace

std::string parse_error_text(const CLI::ParseError& e, const CLI::App& app) {
    const CLI::App& at = deepest_parsed(app);
    const std::string who = command_path(at);
    const std::string what = e.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) return extras_text(at, who);
    if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr &&
        what.starts_with("A subcommand")) {
        return missing_command_text(at, who);
    }
    if (dynamic_cast<const CLI::ExcludesError*>(&e) != nullptr) {
        return who + ": " + pair_text(what, " excludes ", " and ") + " cannot be used together";
    }
    if (dynamic_cast<const CLI::RequiresError*>(&e) != nullptr)
        return who + ": " + pair_text(what, " requires ", " needs ");
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr &&
        what.find(" required ") != std::string::npos && what.ends_with(" missing")) {
        return who + ": " + what.substr(0, what.find(':')) + " needs a value";
    }
    return who + ": " + what;
}

const CLI::Validator one_or_more(
    [](const std::string& s) {
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        const bool ok = ec == std::errc() && end == s.data() + s.size() && v >= 1;
        return ok ? std::string() : "must be 1 or more, not " + s;
    },
    "");

}  // namespace objwire::client
