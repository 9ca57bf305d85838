// The compression figures the connections of one process share (proto/compression_policy.hpp,
// codec_measures): a connection opened after others compressed starts from their figures of
// each codec level - the codec's cost on this machine and its ratio on this process's data -
// and measures again at its own pace. The newest figure of a level wins.
#pragma once

#include <mutex>
#include <vector>

#include "proto/compression_policy.hpp"

namespace objwire::client {

class shared_codec_measures final : public codec_measures {
  public:
    static shared_codec_measures& of_process();

    std::vector<codec_measure> recall() const override;
    void remember(const codec_measure& m) override;

  private:
    mutable std::mutex mutex_;
    std::vector<codec_measure> figures_;  // one per codec level, a handful
};

}  // namespace objwire::client
