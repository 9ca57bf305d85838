// What `send` and `bench` share: the flags that shape a sending connection (address, TLS,
// token, sender id, resume, table cadence, compression), how they become settings, and how a
// connection's opening and closing are reported with the CLI's exit codes.
#pragma once

#include <string>

#include <objwire/connection.hpp>
#include "client/cli/progress.hpp"
#include "client/cli/subcommand.hpp"
#include "config/settings.hpp"

namespace objwire::client {

struct sender_flags {
    std::string config_file;
    std::string to;
    std::string reset;
    std::string table_budget;
    std::string compression;  // --compression never|always|auto
    std::string codec;        // --codec zlib|zstd|lz4
    std::string level;        // --level N
    std::string transient;    // --transient Type.field,Type.field
    std::string sender_id;    // --sender-id ID
    std::string retry_for;    // --retry-for DURATION
    bool tls = false;         // --tls
    std::string tls_ca;       // --tls-ca FILE
    std::string token_file;   // --token-file FILE
};

void add_sender_flags(CLI::App* cmd, sender_flags& f);

// Defaults < file < environment < flags; false (the reason printed) when a layer is bad.
bool load_sender_settings(const sender_flags& f, config::client_settings& s);

// Opens `c`: exit_codes::ok, or cannot_connect with the reason printed.
int open_connection(connection& c);
// Prints why `c` did not open; cannot_connect.
int open_connection_failed(const connection& c);

// Closes `c` (waiting for the last acks) and reports resumes and a failure
// (report_connection_failure): exit_codes::ok, or not_acknowledged.
int finish_connection(connection& c, const config::client_settings& s);

// For a connection that broke and could not be resumed: its address, the cause and how many
// of the objects sent were acknowledged.
void report_connection_failure(const connection& c, const config::client_settings& s);

// What the progress line shows for a connection: objects, wire bytes, acks, compression.
progress_sample progress_of(const connection& c);

}  // namespace objwire::client
