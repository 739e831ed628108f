// OpenCL MeanVarianceNormalization against the CPU (which keeps its sums in double): the
// default axes and every other set on odd shapes (batch > 1, channels not multiples of 4),
// negative axes, up to eight runs of reduced and kept dims, groups of tens of thousands of
// members (the work-group strides and its tree meet), a large mean (fp32 accumulation).
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

void expectMvn(const Tensor& x, const std::vector<int64_t>* axes, double rtol = 1e-4, double atol = 1e-4, int opset = 13) {
  Attributes a;
  if (axes) a.setInts("axes", *axes);
  std::string what = "MVN " + shapeToString(x.shape()) + " axes";
  if (axes)
    for (int64_t v : *axes) what += " " + std::to_string(v);
  expectOpenClMatchesCpu("MeanVarianceNormalization", {x}, a, what, {}, 1, opset, rtol, atol);
}

TEST(OpenClMeanVarianceNormalization, EveryAxisSet) {
  REQUIRE_OPENCL();
  for (const Shape& s : std::vector<Shape>{{3, 5, 7, 9}, {2, 13, 1, 3}, {1, 3, 5, 1}}) {
    const Tensor x = randomTensor(s, 521, -2.f, 3.f);
    expectMvn(x, nullptr);  // [0, 2, 3]
    for (const std::vector<int64_t>& a : std::vector<std::vector<int64_t>>{
             {0}, {1}, {2}, {3}, {-1}, {2, 3}, {0, 3}, {1, 2, 3}, {0, 1, 2, 3}, {-4, -2}, {3, 0, 2}})
      expectMvn(x, &a);
  }
  const std::vector<int64_t> one = {1}, zero = {0}, even = {0, 2, 4}, even8 = {0, 2, 4, 6};
  expectMvn(randomTensor({5, 13}, 522), &one);
  expectMvn(randomTensor({7}, 523), &zero);
  expectMvn(randomTensor({2, 3, 4, 5, 3}, 524), &even, 1e-4, 1e-4, 9);
  expectMvn(randomTensor({2, 3, 2, 3, 2, 3, 2, 3}, 525), &even8);  // eight runs
}

TEST(OpenClMeanVarianceNormalization, LargeGroupsAndMean) {
  REQUIRE_OPENCL();
  expectMvn(randomTensor({1, 3, 201, 201}, 526, 99.f, 101.f), nullptr, 1e-3, 1e-3);  // 40,401 members
  expectMvn(tensorFrom({2, 2, 1, 3}, std::vector<float>(12, 1.5f)), nullptr);     // constant: 0
}

}  // namespace
}  // namespace test
}  // namespace tessera
