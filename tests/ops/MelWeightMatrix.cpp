// MelWeightMatrix against a naive transcription of ONNX's reference (mel points spaced by
// (high - low) / (M + 2), integer bins, triangles): several bin counts, lengths, rates and
// edges. Bad counts and rates fail naming the node.
#include <gtest/gtest.h>

#include <cmath>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

// ONNX's reference, step by step: mel points, integer bins, triangles.
Tensor melReference(int64_t mels, int64_t L, int64_t rate, float lowHz, float highHz) {
  const float lowMel = 2595.f * std::log10(1.f + lowHz / 700.f);
  const float highMel = 2595.f * std::log10(1.f + highHz / 700.f);
  const float step = (highMel - lowMel) / static_cast<float>(mels + 2);
  std::vector<int64_t> bins;
  for (int64_t i = 0; i < mels + 2; ++i) {
    const double hz = 700 * (std::pow(10.0, (i * static_cast<double>(step) + lowMel) / 2595) - 1);
    bins.push_back(static_cast<int64_t>(std::floor((L + 1) * hz / rate)));
  }
  const int64_t rows = L / 2 + 1;
  Tensor t = tensorFrom({rows, mels}, std::vector<float>(rows * mels, 0.f));
  auto set = [&](int64_t j, int64_t m, double v) {
    if (j >= 0 && j < rows) t.data<float>()[j * mels + m] = static_cast<float>(v);
  };
  for (int64_t m = 0; m < mels; ++m) {
    const int64_t lo = bins[m], c = bins[m + 1], hi = bins[m + 2];
    if (c == lo) set(c, m, 1);
    else
      for (int64_t j = lo; j <= c; ++j) set(j, m, double(j - lo) / double(c - lo));
    for (int64_t j = c; j < hi; ++j) set(j, m, double(hi - j) / double(hi - c));
  }
  return t;
}

TEST(MelWeightMatrixOp, AgainstReference) {
  struct Case { int64_t mels, L, rate; float low, high; };
  for (const Case& c : {Case{8, 16, 8192, 0, 4096}, Case{5, 63, 16000, 100, 7000}, Case{13, 256, 22050, 20, 11025},
                        Case{1, 7, 1000, 0, 500}, Case{40, 512, 16000, 0, 8000}}) {
    const std::string what = std::to_string(c.mels) + " mels L " + std::to_string(c.L);
    std::vector<Tensor> in = {tensorFromInts({}, {c.mels}), tensorFromInts({}, {c.L}), tensorFromInts({}, {c.rate}),
                              tensorFrom({}, {c.low}), tensorFrom({}, {c.high})};
    OpRun r = runOp("MelWeightMatrix", in, {}, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
    EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
    expectClose(r.outputs[0], melReference(c.mels, c.L, c.rate, c.low, c.high), 1e-6, 1e-7, what);
  }
  OpRun r = runOp("MelWeightMatrix", {tensorFromInts({}, {0}), tensorFromInts({}, {16}), tensorFromInts({}, {8000}),
                                      tensorFrom({}, {0.f}), tensorFrom({}, {4000.f})}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("MelWeightMatrix"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("num_mel_bins 0"), std::string::npos) << r.status.message();
  r = runOp("MelWeightMatrix", {tensorFromInts({}, {4}), tensorFromInts({}, {16}), tensorFromInts({}, {0}),
                                tensorFrom({}, {0.f}), tensorFrom({}, {4000.f})}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("sample_rate 0"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
