// BitShift: LEFT and RIGHT on u8, u16, u32, u64 with shift amounts 0, 1, width - 1, width and
// beyond, broadcasting either way, against a naive one-bit-at-a-time reference.
#include <gtest/gtest.h>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

// x shifted n times by one bit, kept to the type's width: no shift by the width ever happens.
template <typename T>
T naiveShift(T x, T n, bool left) {
  uint64_t v = x;
  const uint64_t mask = static_cast<T>(~T(0));
  for (uint64_t k = 0; k < static_cast<uint64_t>(n) && v != 0; ++k) v = left ? (v << 1) & mask : v >> 1;
  return static_cast<T>(v);
}

template <typename T>
void sweep() {
  constexpr T width = sizeof(T) * 8;
  const T maxValue = static_cast<T>(~T(0));
  const std::vector<T> xs = {0, 1, 3, 0x5a, maxValue, static_cast<T>(maxValue / 3), static_cast<T>(T(1) << (width - 1)), 77};
  const std::vector<T> shifts = {0, 1, 2, static_cast<T>(width - 1), width, static_cast<T>(width + 1),
                                 static_cast<T>(2 * width), maxValue};
  struct Case { Shape x, n, out; };
  for (const Case& c : std::vector<Case>{{{8, 8}, {8, 8}, {8, 8}}, {{8, 1}, {1, 8}, {8, 8}},
                                         {{3, 8}, {}, {3, 8}}, {{}, {5, 8}, {5, 8}}, {{2, 1, 8}, {3, 1}, {2, 3, 8}}}) {
    const Tensor x = filledTensor<T>(c.x, [&](int64_t i) { return xs[(i * 5 + i / 8) % xs.size()]; });
    const Tensor n = filledTensor<T>(c.n, [&](int64_t i) { return shifts[(i + i / 8) % shifts.size()]; });
    for (bool left : {true, false}) {
      Tensor expected = Tensor::hostAllocate(c.out, DataTypeOf<T>::value);
      for (int64_t o = 0; o < expected.elementCount(); ++o) {
        const std::vector<int64_t> pos = unravelIndex(o, c.out);
        auto at = [&](const Tensor& t) {
          std::vector<int64_t> src(t.rank());
          for (int d = 0; d < t.rank(); ++d) src[d] = t.dim(d) == 1 ? 0 : pos[pos.size() - t.rank() + d];
          return t.data<T>()[ravelIndex(src, t.shape())];
        };
        expected.data<T>()[o] = naiveShift<T>(at(x), at(n), left);
      }
      Attributes attrs;
      attrs.setString("direction", left ? "LEFT" : "RIGHT");
      OpRun r = runOp("BitShift", {x, n}, attrs, 1, BackendType::kCPU);
      const std::string what = std::string(dataTypeName(DataTypeOf<T>::value)) + (left ? " LEFT " : " RIGHT ") +
                               shapeToString(c.x) + " by " + shapeToString(c.n);
      ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
      EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
      expectSameBytes(r.outputs[0], expected, what);
    }
  }
}

TEST(BitShiftOp, EveryUnsignedTypeAndShiftAgainstNaive) {
  sweep<uint8_t>();
  sweep<uint16_t>();
  sweep<uint32_t>();
  sweep<uint64_t>();
}

TEST(BitShiftOp, BadInputsFailNamingTheNode) {
  Attributes left;
  left.setString("direction", "LEFT");
  OpRun r = runOp("BitShift", {tensorFromInts({3}, {1, 2, 3}), tensorFromInts({3}, {1, 1, 1})}, left, 1,
                  BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());  // signed
  EXPECT_NE(r.status.message().find("BitShift 'op'"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("unsigned"), std::string::npos) << r.status.message();
  const Tensor u = filledTensor<uint8_t>({3}, [](int64_t i) { return i; });
  Attributes up;
  up.setString("direction", "UP");
  r = runOp("BitShift", {u, u}, up, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("BitShift 'op'"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("direction 'UP'"), std::string::npos) << r.status.message();
  r = runOp("BitShift", {u, u}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("direction"), std::string::npos) << r.status.message();
  r = runOp("BitShift", {u, filledTensor<uint16_t>({3}, [](int64_t i) { return i; })}, left, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());  // mixed widths
}

}  // namespace
}  // namespace test
}  // namespace tessera
