// HannWindow, HammingWindow and BlackmanWindow against their formulas in double: sizes 0, 1,
// 2, odd and even, periodic and symmetric, f32, f64 and int32 outputs, the size as a run-time
// input and as a constant. Bad sizes fail naming the node.
#include <gtest/gtest.h>

#include <cmath>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct WindowKind { const char* op; double a0, a1, a2; };

Tensor windowReference(const WindowKind& k, int64_t size, bool periodic, DataType dt) {
  Tensor t = Tensor::hostAllocate({size}, dt);
  const double N = static_cast<double>(periodic ? size : size - 1);
  for (int64_t n = 0; n < size; ++n) {
    const double w = k.a0 - k.a1 * std::cos(2 * kPi * n / N) + k.a2 * std::cos(4 * kPi * n / N);
    if (dt == DataType::kF64) t.data<double>()[n] = w;
    else if (dt == DataType::kF32) t.data<float>()[n] = static_cast<float>(w);
    else t.data<int32_t>()[n] = std::isfinite(w) ? static_cast<int32_t>(w) : 0;
  }
  return t;
}

TEST(CosineWindowOp, AgainstFormula) {
  const WindowKind kinds[] = {{"HannWindow", 0.5, 0.5, 0}, {"HammingWindow", 25.0 / 46, 21.0 / 46, 0},
                              {"BlackmanWindow", 0.42, 0.5, 0.08}};
  const std::pair<int64_t, DataType> types[] = {{1, DataType::kF32}, {11, DataType::kF64}, {6, DataType::kI32}};
  for (const WindowKind& k : kinds)
    for (int64_t size : {0, 1, 2, 3, 5, 10, 13, 64})
      for (int periodic : {-1, 0, 1})  // -1: the attribute left out (periodic)
        for (const auto& [onnxType, dt] : types)
          for (bool constant : {false, true}) {
            if (size == 1 && periodic == 0 && dt != DataType::kI32) continue;  // 0/0: NaN, checked below
            Attributes a;
            if (periodic >= 0) a.setInt("periodic", periodic);
            if (onnxType != 1) a.setInt("output_datatype", onnxType);
            const std::string what = std::string(k.op) + " size " + std::to_string(size) + " periodic " +
                                     std::to_string(periodic) + " " + dataTypeName(dt) + (constant ? " constant" : "");
            OpRun r = runOp(k.op, {tensorFromInts({}, {size})}, a, 1, BackendType::kCPU, {constant});
            ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
            expectClose(r.outputs[0], windowReference(k, size, periodic != 0, dt), 1e-6, 1e-7, what);
          }
  // A symmetric window of one sample divides 0 by 0, as ONNX's definition does.
  Attributes symmetric;
  symmetric.setInt("periodic", 0);
  OpRun r = runOp("HannWindow", {tensorFromInts({}, {1})}, symmetric, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  EXPECT_TRUE(std::isnan(r.outputs[0].data<float>()[0]));
}

TEST(CosineWindowOp, BadSizeFailsNamingTheNode) {
  OpRun r = runOp("HannWindow", {tensorFromInts({}, {-3})}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("HannWindow"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("size -3 is negative"), std::string::npos) << r.status.message();
  r = runOp("BlackmanWindow", {tensorFromInts({2}, {3, 4})}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("must be a scalar"), std::string::npos) << r.status.message();
  r = runOp("HammingWindow", {tensorFrom({}, {3.f})}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("int64"), std::string::npos) << r.status.message();
  Attributes a;
  a.setInt("output_datatype", 8);  // string
  EXPECT_FALSE(runOp("HannWindow", {tensorFromInts({}, {3})}, a, 1, BackendType::kCPU).status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
