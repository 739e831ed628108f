// `tessera bench --profile`'s per-step figures: the median of each step's time over the
// profiled runs, so that one run a noisy machine slowed does not decide where the time goes.
#pragma once
#include <vector>

#include "tessera/Session.hpp"

namespace tessera {
namespace cli {

// The last run's steps, each with the median of its time over the runs whose steps are the
// same (the same step names in the same order; others are left out). Empty without runs.
std::vector<Session::ProfileEntry> medianProfile(const std::vector<std::vector<Session::ProfileEntry>>& runs,
                                                 int* runsUsed);

}  // namespace cli
}  // namespace tessera
