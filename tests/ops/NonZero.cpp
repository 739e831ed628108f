// NonZero: every dtype it takes, ranks 0 to 4, all-zero and all-non-zero inputs, -0.0 and NaN,
// against a naive reference (coordinates in row-major order).
#include <cmath>

#include <gtest/gtest.h>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor nonZeroReference(const std::vector<double>& values, const Shape& shape) {
  std::vector<int64_t> flat;
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] != 0 || std::isnan(values[i])) flat.push_back(static_cast<int64_t>(i));
  const int64_t rank = static_cast<int64_t>(shape.size()), count = static_cast<int64_t>(flat.size());
  std::vector<int64_t> out(static_cast<size_t>(rank * count));
  for (int64_t k = 0; k < count; ++k) {
    const std::vector<int64_t> at = unravelIndex(flat[k], shape);
    for (int64_t d = 0; d < rank; ++d) out[d * count + k] = at[d];
  }
  return tensorFromInts({rank, count}, out);
}

template <typename T>
Tensor typed(const Shape& shape, DataType dt, const std::vector<double>& values) {
  Tensor t = Tensor::hostAllocate(shape, dt);
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = static_cast<T>(values[i]);
  return t;
}

TEST(NonZeroOp, EveryDtypeAndRankAgainstNaive) {
  for (const Shape& shape : {Shape{}, Shape{7}, Shape{3, 5}, Shape{2, 1, 3}, Shape{2, 3, 1, 5}, Shape{0, 4}}) {
    const int64_t n = elementCount(shape);
    for (int pattern = 0; pattern < 3; ++pattern) {
      std::vector<double> v(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) v[i] = pattern == 0 ? 0 : pattern == 1 ? 1 + i : ((i * 7) % 3 == 0 ? 0 : i % 5 + 1);
      const Tensor expected = nonZeroReference(v, shape);
      const std::string what = shapeToString(shape) + " pattern " + std::to_string(pattern);
      const std::vector<Tensor> inputs = {typed<float>(shape, DataType::kF32, v), typed<double>(shape, DataType::kF64, v),
                                          typed<int64_t>(shape, DataType::kI64, v), typed<int32_t>(shape, DataType::kI32, v),
                                          typed<uint8_t>(shape, DataType::kU8, v), typed<bool>(shape, DataType::kBool, v)};
      for (const Tensor& x : inputs) {
        OpRun r = runOp("NonZero", {x}, {}, 1, BackendType::kCPU);
        ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
        expectSameBytes(r.outputs[0], expected, what + " " + dataTypeName(x.dtype()));
      }
    }
  }
}

TEST(NonZeroOp, NegativeZeroIsZeroAndNaNIsNot) {
  const std::vector<double> v = {-0.0, NAN, 0.0, -1.0};
  OpRun r = runOp("NonZero", {typed<float>({4}, DataType::kF32, v)}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectSameBytes(r.outputs[0], tensorFromInts({1, 2}, {1, 3}), "-0, NaN, 0, -1");
}

}  // namespace
}  // namespace test
}  // namespace tessera
