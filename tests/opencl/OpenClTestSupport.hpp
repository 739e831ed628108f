// Shared by the OpenCL test files: skip when no OpenCL device is present (with the reason),
// compare an op on OpenCL with the CPU reference, and assert it really ran on OpenCL.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/GpuMatchesCpu.hpp"
#include "support/OpTest.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace test {

// Empty when an OpenCL backend can be created; else why not.
inline std::string openclUnavailableReason() {
  const BackendFactory* f = BackendRegistry::instance().find(BackendType::kOpenCL);
  if (!f) return "the OpenCL backend is not built";
  std::unique_ptr<Backend> b;
  Status st = f->create(BackendOptions{}, &b);
  return st.isOk() ? "" : st.message();
}

#define REQUIRE_OPENCL()                                                  \
  do {                                                                    \
    static const std::string why = ::tessera::test::openclUnavailableReason(); \
    if (!why.empty()) GTEST_SKIP() << "OpenCL unavailable: " << why;      \
  } while (0)

// Runs the op on OpenCL and on the CPU, expects the same outputs and the op on OpenCL.
inline void expectOpenClMatchesCpu(const std::string& op, const std::vector<Tensor>& inputs,
                                   const Attributes& attrs, const std::string& what,
                                   const std::vector<bool>& constants = {}, int numOutputs = 1,
                                   int opset = 17, double rtol = 1e-4, double atol = 1e-5) {
  expectGpuMatchesCpu(BackendType::kOpenCL, op, inputs, attrs, numOutputs, constants, opset, rtol, atol, what);
}

inline Attributes ints(const std::string& name, std::vector<int64_t> v, Attributes a = {}) {
  a.setInts(name, std::move(v));
  return a;
}

}  // namespace test
}  // namespace tessera
