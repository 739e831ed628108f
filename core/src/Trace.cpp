// findDivergence: compares a candidate trace with a reference trace, value by value, and
// names the op that introduced the difference.
#include "tessera/Trace.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace tessera {
namespace {

// The values of `t` as doubles; false for a dtype that cannot be read so.
bool asDoubles(const Tensor& t, std::vector<double>* out) {
  Tensor d = Tensor::hostAllocate(t.shape(), DataType::kF64);
  if (!convertDataType(t, d)) return false;
  out->assign(d.data<double>(), d.data<double>() + d.elementCount());
  return true;
}

TracedDifference compare(const TracedOutput& ref, const TracedOutput& got, double rtol, double atol) {
  TracedDifference d;
  d.output = got.output;
  if (ref.value.shape() != got.value.shape()) {
    d.note = "shape " + shapeToString(got.value.shape()) + ", reference " + shapeToString(ref.value.shape());
    d.within = false;
    return d;
  }
  std::vector<double> a, b;
  if (!asDoubles(ref.value, &a) || !asDoubles(got.value, &b)) {
    d.note = std::string("dtype ") + dataTypeName(got.value.dtype()) + " is not compared";
    return d;
  }
  d.compared = true;
  double worstRatio = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double r = a[i], v = b[i];
    if ((std::isnan(r) && std::isnan(v)) || (std::isinf(r) && r == v)) continue;
    const double err = std::isnan(r) || std::isnan(v) ? INFINITY : std::fabs(v - r);
    const double allowed = atol + rtol * std::fabs(r);
    if (err > allowed) ++d.outOfTolerance;
    d.maxAbsErr = std::max(d.maxAbsErr, err);
    // The element furthest out of tolerance (error over what is allowed there).
    const double ratio = allowed > 0 ? err / allowed : (err > 0 ? INFINITY : 0);
    if (d.worst < 0 || ratio > worstRatio) {
      worstRatio = ratio;
      d.worst = static_cast<int64_t>(i);
      d.reference = r;
      d.value = v;
    }
  }
  d.within = d.outOfTolerance == 0;
  return d;
}

}  // namespace

Divergence findDivergence(const std::vector<TracedOutput>& reference, const std::vector<TracedOutput>& candidate,
                          double rtol, double atol) {
  std::map<std::string, const TracedOutput*> byName;
  for (const TracedOutput& r : reference) byName[r.output] = &r;
  Divergence out;
  for (const TracedOutput& c : candidate) {
    auto r = byName.find(c.output);
    TracedDifference d;
    if (r == byName.end()) {
      d.output = c.output;
      d.note = "not in the reference";
    } else {
      d = compare(*r->second, c, rtol, atol);
    }
    // A trace is in execution order, so every input of the first value out of tolerance
    // came earlier and was within it (values the trace lacks, graph inputs and
    // initializers, are the same on both sides): that node introduced the difference.
    if (!d.within && out.first < 0) out.first = static_cast<int>(out.values.size());
    out.values.push_back(d);
  }
  return out;
}

}  // namespace tessera
