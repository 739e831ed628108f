// Range with constant start/limit/delta of several types.
#include <gtest/gtest.h>

#include <cmath>

#include "support/OpTest.hpp"

namespace tessera {
namespace {

Tensor scalarOf(DataType t, double v) {
  Tensor f = test::tensorFrom({}, {static_cast<float>(v)});
  Tensor out = Tensor::hostAllocate({}, t);
  convertDataType(f, out);
  return out;
}

void checkRange(DataType t, double start, double limit, double delta) {
  test::OpRun r = test::runOp("Range", {scalarOf(t, start), scalarOf(t, limit), scalarOf(t, delta)},
                              {}, 1, BackendType::kCPU, {true, true, true});
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((limit - start) / delta)));
  Tensor expected = Tensor::hostAllocate({n}, DataType::kF64);
  for (int64_t i = 0; i < n; ++i) expected.data<double>()[i] = start + i * delta;
  Tensor typed = Tensor::hostAllocate({n}, t);
  convertDataType(expected, typed);
  test::expectClose(r.outputs[0], typed, 1e-6, 1e-6, dataTypeName(t));
}

TEST(Range, FloatsAndIntegers) {
  checkRange(DataType::kF32, 1, 5, 2);
  checkRange(DataType::kF32, 0, 1, 0.1);
  checkRange(DataType::kF32, 3, 1, 1);  // empty
  checkRange(DataType::kI32, 10, 6, -3);
  checkRange(DataType::kI64, -5, 20, 4);
  checkRange(DataType::kF64, 2.5, -1, -0.5);
}

TEST(Range, RejectsZeroDelta) {
  test::OpRun r = test::runOp("Range", {scalarOf(DataType::kI32, 0), scalarOf(DataType::kI32, 5),
                                        scalarOf(DataType::kI32, 0)},
                              {}, 1, BackendType::kCPU, {true, true, true});
  ASSERT_FALSE(r.status.isOk());
}

}  // namespace
}  // namespace tessera
