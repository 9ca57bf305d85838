// "Did you mean": the name a user most likely meant when they wrote one that does not exist -
// a config key, a table, an enum value or an OBJWIRE_* environment variable.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace objwire::config {

// The parts of a dotted key: "server.listen" -> "server", "listen" ("" and the name itself
// for a name without a dot).
std::string_view section_of(std::string_view name);
std::string_view leaf_of(std::string_view name);

// Optimal string alignment distance: edits plus adjacent transpositions ("lsiten").
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate the user most likely meant, if any is close enough: the same name in another
// case ("INFO" -> "info"), the same leaf in another
// section ("server.max_depth" -> "limits.max_depth"), a small edit distance, or a leaf that
// extends or shortens the candidate's ("server.listen_addr" -> "server.listen").
std::optional<std::string_view> suggest(std::string_view wrong,
                                        const std::vector<std::string_view>& candidates);

}  // namespace objwire::config
