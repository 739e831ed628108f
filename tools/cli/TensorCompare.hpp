// Compares a computed tensor with an expected one the way the ONNX backend tests do.
#pragma once
#include <string>

#include "tessera/Tensor.hpp"

namespace tessera {
namespace cli {

struct Comparison {
  bool ok = false;
  std::string mismatch;    // why not ok: dtype, shape, or the worst element
  double maxAbsErr = 0.0;  // over finite elements
  double maxRelErr = 0.0;  // |a - e| / |e| over finite elements with e != 0
};

// Same dtype and shape; floating point: |a - e| <= atol + rtol * |e|, NaN equals NaN and
// infinities must match exactly; integers and bools must be equal.
Comparison compareTensors(const Tensor& actual, const Tensor& expected, double rtol,
                          double atol);

}  // namespace cli
}  // namespace tessera
