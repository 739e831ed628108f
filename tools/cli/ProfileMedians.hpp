// `tessera bench --profile`'s per-step figures: the median of each step's time over the
// profiled runs, so that one run a noisy machine slowed does not decide where the time goes.
#pragma once
#include <cstddef>
#include <vector>

#include "tessera/Session.hpp"

namespace tessera {
namespace cli {

class ProfileMedians {
 public:
  // One run's profile (Session::profile()). Each distinct list of steps is kept once; a run
  // keeps only its times.
  void add(const std::vector<Session::ProfileEntry>& run);
  // The last run's steps, each with the median of its time over the runs whose steps are the
  // same (the same step names in the same order; others are left out), and how many those
  // were. Empty without runs.
  std::vector<Session::ProfileEntry> medians(int* runsUsed) const;

 private:
  std::vector<std::vector<Session::ProfileEntry>> stepLists_;
  std::vector<size_t> runList_;           // per run: its index in stepLists_
  std::vector<std::vector<double>> runMs_;  // per run: each step's time
};

}  // namespace cli
}  // namespace tessera
