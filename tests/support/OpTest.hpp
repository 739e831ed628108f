// Helpers for per-op tests: run one op through a real Session on a chosen backend and
// compare with a naive reference written in the test.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/Tessera.hpp"

namespace tessera {
namespace test {

struct OpRun {
  Status status;
  std::vector<Tensor> outputs;   // host NCHW
  PlacementReport report;        // which backend ran the op, conversions inserted
};

// Builds a one-node graph. Inputs marked constant become initializers (so kernels may
// pre-pack them); an empty Tensor (rank 0, no data, dtype kUnknown) is an omitted input.
OpRun runOp(const std::string& opType, const std::vector<Tensor>& inputs, const Attributes& attrs,
            int numOutputs, BackendType backend, const std::vector<bool>& constantInputs = {},
            int opset = 17, Precision precision = Precision::kFP32);

// Deterministic uniform random f32 tensor in [lo, hi).
Tensor randomTensor(const Shape& shape, uint32_t seed, float lo = -1.f, float hi = 1.f);
Tensor tensorFrom(const Shape& shape, const std::vector<float>& values);
Tensor tensorFromInts(const Shape& shape, const std::vector<int64_t>& values);

// GoogleTest expectation: same shape and dtype, |a-e| <= atol + rtol*|e| elementwise.
void expectClose(const Tensor& actual, const Tensor& expected, double rtol = 1e-3,
                 double atol = 1e-5, const std::string& what = "");

// Backends present in this build and this machine (CPU always).
std::vector<BackendType> availableBackends();

}  // namespace test
}  // namespace tessera
