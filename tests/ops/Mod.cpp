// Mod: fmod = 0 (divisor's sign) and 1 (dividend's sign) on every integer dtype, fmod = 1 on
// every float dtype, all four sign combinations, broadcasting shapes, divisors of 0 (integers
// give 0) and INT_MIN % -1, against references in double (floor / trunc division).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "NaiveIndex.hpp"
#include "TypedTensor.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

// a - b * floor(a / b) (Python) or a - b * trunc(a / b) (C); 0 for a zero integer divisor.
double naiveMod(double a, double b, bool fmod, bool integer) {
  if (b == 0) return integer ? 0 : std::nan("");
  if (!integer) return std::fmod(a, b);
  const double q = fmod ? std::trunc(a / b) : std::floor(a / b);
  return a - b * q;
}

// Element i of the broadcast of `in` (shape s) to `out`.
int64_t broadcastSource(int64_t o, const Shape& out, const Shape& s) {
  const std::vector<int64_t> pos = unravelIndex(o, out);
  std::vector<int64_t> src(s.size());
  for (size_t d = 0; d < s.size(); ++d) src[d] = s[d] == 1 ? 0 : pos[pos.size() - s.size() + d];
  return ravelIndex(src, s);
}

Tensor modReference(const Tensor& a, const Tensor& b, const Shape& out, bool fmod) {
  const std::vector<double> as = toDoubles(a), bs = toDoubles(b);
  return typedTensor(out, a.dtype(), [&](int64_t o) {
    return naiveMod(as[broadcastSource(o, out, a.shape())], bs[broadcastSource(o, out, b.shape())], fmod,
                    isInteger(a.dtype()));
  });
}

struct Case { Shape a, b, out; };
const std::vector<Case>& broadcastCases() {
  static const std::vector<Case> cases = {
      {{13}, {13}, {13}}, {{3, 1, 5}, {4, 1}, {3, 4, 5}}, {{2, 3, 7}, {}, {2, 3, 7}},
      {{1, 5}, {3, 1}, {3, 5}}, {{}, {2, 9}, {2, 9}}, {{3, 5, 1, 1}, {5, 7, 3}, {3, 5, 7, 3}}};
  return cases;
}

TEST(ModOp, IntegersBothModesEveryDtypeAgainstNaive) {
  for (DataType t : integerTypes()) {
    const bool sign = isSignedType(t);
    for (const Case& c : broadcastCases()) {
      // Dividends in [-60, 60) (unsigned: [0, 120)); divisors cycle through negatives and 0.
      const Tensor a = typedTensor(c.a, t, [&](int64_t i) { return (i * 37 + 11) % 120 - (sign ? 60 : 0); });
      const std::vector<double> divisors = sign ? std::vector<double>{7, -7, 3, -3, 1, -1, 0, 11, -13, 120}
                                                : std::vector<double>{7, 3, 1, 0, 11, 13, 120, 200};
      const Tensor b = typedTensor(c.b, t, [&](int64_t i) { return divisors[(i * 3 + 1) % divisors.size()]; });
      for (int fmod = 0; fmod < 2; ++fmod) {
        Attributes attrs;
        attrs.setInt("fmod", fmod);
        OpRun r = runOp("Mod", {a, b}, attrs, 1, BackendType::kCPU);
        const std::string what = std::string(dataTypeName(t)) + " fmod " + std::to_string(fmod) + " " +
                                 shapeToString(c.a) + " % " + shapeToString(c.b);
        ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
        EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
        expectSameBytes(r.outputs[0], modReference(a, b, c.out, fmod), what);
      }
    }
  }
}

TEST(ModOp, FloatsEveryDtypeAgainstNaive) {
  for (DataType t : {DataType::kF32, DataType::kF64, DataType::kF16, DataType::kBF16}) {
    for (const Case& c : broadcastCases()) {
      const Tensor a = typedTensor(c.a, t, [](int64_t i) { return ((i * 37 + 11) % 96 - 48) * 0.25; });
      const std::vector<double> divisors = {1.5, -1.5, 0.75, -2.25, 4, -4, 0.5, 5.25};
      const Tensor b = typedTensor(c.b, t, [&](int64_t i) { return divisors[(i * 3 + 1) % divisors.size()]; });
      Attributes attrs;
      attrs.setInt("fmod", 1);
      OpRun r = runOp("Mod", {a, b}, attrs, 1, BackendType::kCPU);
      const std::string what = std::string(dataTypeName(t)) + " " + shapeToString(c.a) + " % " + shapeToString(c.b);
      ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
      EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
      expectClose(r.outputs[0], modReference(a, b, c.out, true), 1e-6, 0, what);  // fmod is exact
    }
  }
}

// The four sign combinations, spelled out: 7 % 3, -7 % 3, 7 % -3, -7 % -3.
TEST(ModOp, SignOfTheResult) {
  const Tensor a = tensorFromInts({4}, {7, -7, 7, -7});
  const Tensor b = tensorFromInts({4}, {3, 3, -3, -3});
  Attributes python, c;
  c.setInt("fmod", 1);
  OpRun r = runOp("Mod", {a, b}, python, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectSameBytes(r.outputs[0], tensorFromInts({4}, {1, 2, -2, -1}), "fmod 0");
  r = runOp("Mod", {a, b}, c, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectSameBytes(r.outputs[0], tensorFromInts({4}, {1, -1, 1, -1}), "fmod 1");
  r = runOp("Mod", {tensorFrom({4}, {7, -7, 7, -7}), tensorFrom({4}, {3, 3, -3, -3})}, c, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectClose(r.outputs[0], tensorFrom({4}, {1, -1, 1, -1}), 0, 0, "float fmod 1");
}

// Divisors of 0 give 0; the lowest value % -1 is 0 (it overflows in C); u64 beyond 2^63.
TEST(ModOp, EdgeValues) {
  const int64_t lo = std::numeric_limits<int64_t>::lowest();
  for (int fmod = 0; fmod < 2; ++fmod) {
    Attributes attrs;
    attrs.setInt("fmod", fmod);
    OpRun r = runOp("Mod", {tensorFromInts({4}, {5, -5, lo, lo}), tensorFromInts({4}, {0, 0, -1, 3})}, attrs, 1,
                    BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    // lo = -9223372036854775808 = 3 * -3074457345618258602 - 2.
    expectSameBytes(r.outputs[0], tensorFromInts({4}, {0, 0, 0, fmod ? -2 : 1}), "i64 fmod " + std::to_string(fmod));
    Tensor a = Tensor::hostAllocate({2}, DataType::kU64), b = Tensor::hostAllocate({2}, DataType::kU64);
    a.data<uint64_t>()[0] = ~uint64_t{0};
    a.data<uint64_t>()[1] = ~uint64_t{0};
    b.data<uint64_t>()[0] = uint64_t{1} << 63;
    b.data<uint64_t>()[1] = 10;
    r = runOp("Mod", {a, b}, attrs, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    EXPECT_EQ(r.outputs[0].data<uint64_t>()[0], (uint64_t{1} << 63) - 1);
    EXPECT_EQ(r.outputs[0].data<uint64_t>()[1], 5u);  // 18446744073709551615 % 10
  }
}

TEST(ModOp, BadInputsFailNamingTheNode) {
  OpRun r = runOp("Mod", {randomTensor({3}, 1), randomTensor({3}, 2)}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());  // float with fmod = 0
  EXPECT_NE(r.status.message().find("Mod 'op'"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("fmod"), std::string::npos) << r.status.message();
  Attributes c;
  c.setInt("fmod", 1);
  r = runOp("Mod", {randomTensor({3}, 1), tensorFromInts({3}, {1, 2, 3})}, c, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());  // mixed dtypes
  EXPECT_NE(r.status.message().find("Mod 'op'"), std::string::npos) << r.status.message();
  r = runOp("Mod", {tensorFromInts({3}, {1, 2, 3}), tensorFromInts({2}, {1, 2})}, c, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());  // shapes do not broadcast
  EXPECT_NE(r.status.message().find("broadcast"), std::string::npos) << r.status.message();
  Attributes two;
  two.setInt("fmod", 2);
  r = runOp("Mod", {tensorFromInts({3}, {1, 2, 3}), tensorFromInts({3}, {1, 2, 3})}, two, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("fmod is 2"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
