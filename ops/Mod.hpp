// Mod (opset 10, 13): the elementwise remainder of A / B with numpy broadcasting.
// fmod = 0 (the default) is Python's %: the result has the sign of the divisor B; it is
// allowed for integers only. fmod = 1 is C's fmod: the sign of the dividend A (integers
// truncate, floats use fmod). An integer divisor of 0 gives 0 (numpy's result) rather than
// trapping; a float one gives NaN.
#pragma once
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct ModParams {
  bool fmod = false;

  static Status parse(const Node& node, ModParams* out) {
    const int64_t f = node.attrs.getInt("fmod", 0);
    if (f != 0 && f != 1)
      return Status::invalid(node.label() + ": fmod is " + std::to_string(f) + "; it must be 0 or 1");
    out->fmod = f == 1;
    return Status::ok();
  }
};

}  // namespace tessera
