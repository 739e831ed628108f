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

std::vector<Session::ProfileEntry> medianProfile(const std::vector<std::vector<Session::ProfileEntry>>& runs,
                                                 int* runsUsed) {
  *runsUsed = 0;
  if (runs.empty()) return {};
  std::vector<Session::ProfileEntry> steps = runs.back();
  std::vector<const std::vector<Session::ProfileEntry>*> like;
  for (const auto& r : runs)
    if (sameSteps(r, steps)) like.push_back(&r);
  *runsUsed = static_cast<int>(like.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    std::vector<double> ms;
    for (const auto* r : like) ms.push_back((*r)[i].ms);
    steps[i].ms = median(ms);
  }
  return steps;
}

}  // namespace cli
}  // namespace tessera
