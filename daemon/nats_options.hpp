// What objwired's NATS connections share - the publisher's (daemon/nats_sink.cpp) and each
// stream reader's (daemon/nats_reader.cpp): the servers, a client name, reconnecting forever
// every 250 ms, a 2 s connect timeout and the credentials file. Includes libnats: for those
// two files only.
#pragma once

#include <nats/nats.h>

#include "daemon/nats_sink.hpp"

namespace objwire::daemon {

natsStatus set_common_nats_options(natsOptions* opts, const nats_sink_options& o, const char* name);

}  // namespace objwire::daemon
