#include "tools/cli/ProfileMedians.hpp"

#include <algorithm>

namespace tessera {
namespace cli {

namespace {

bool sameSteps(const std::vector<Session::ProfileEntry>& a, const std::vector<Session::ProfileEntry>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Session::ProfileEntry& x, const Session::ProfileEntry& y) { return x.step == y.step; });
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

void ProfileMedians::add(const std::vector<Session::ProfileEntry>& run) {
  size_t list = 0;
  while (list < stepLists_.size() && !sameSteps(stepLists_[list], run)) ++list;
  if (list == stepLists_.size()) stepLists_.push_back(run);
  runList_.push_back(list);
  std::vector<double> ms;
  ms.reserve(run.size());
  for (const Session::ProfileEntry& e : run) ms.push_back(e.ms);
  runMs_.push_back(std::move(ms));
}

std::vector<Session::ProfileEntry> ProfileMedians::medians(int* runsUsed) const {
  *runsUsed = 0;
  if (runList_.empty()) return {};
  const size_t last = runList_.back();
  std::vector<Session::ProfileEntry> steps = stepLists_[last];
  std::vector<std::vector<double>> ms(steps.size());
  for (size_t r = 0; r < runList_.size(); ++r) {
    if (runList_[r] != last) continue;
    ++*runsUsed;
    for (size_t i = 0; i < steps.size(); ++i) ms[i].push_back(runMs_[r][i]);
  }
  for (size_t i = 0; i < steps.size(); ++i) steps[i].ms = median(ms[i]);
  return steps;
}

}  // namespace cli
}  // namespace tessera
