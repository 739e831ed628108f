// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss against a naive reference: every
// reduction, with and without class weights, ignore_index inside, below and above the class
// range, [N, C] to [N, C, d1, d2] with odd extents, int32 and int64 targets.
#include <gtest/gtest.h>

#include <cmath>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

struct LossCase {
  Shape shape;          // [N, C, ...]
  bool weighted;
  std::string reduction;
  bool hasIgnore;
  int64_t ignoreIndex;
};

// Targets in [0, C), with every third one set to ignore_index when there is one.
Tensor targetsFor(const Shape& shape, bool hasIgnore, int64_t ignoreIndex, DataType dt) {
  Shape ts = shape;
  ts.erase(ts.begin() + 1);
  Tensor t = Tensor::hostAllocate(ts, dt);
  for (int64_t i = 0; i < t.elementCount(); ++i) {
    const int64_t v = hasIgnore && i % 3 == 1 ? ignoreIndex : (i * 5 + 2) % shape[1];
    if (dt == DataType::kI64) t.data<int64_t>()[i] = v;
    else t.data<int32_t>()[i] = static_cast<int32_t>(v);
  }
  return t;
}

int64_t targetAt(const Tensor& t, int64_t i) {
  return t.dtype() == DataType::kI64 ? t.data<int64_t>()[i] : t.data<int32_t>()[i];
}

// The reference: logp [N, C, D] (already log-probabilities), in double.
Tensor nllReference(const LossCase& c, const Tensor& logp, const Tensor& target, const Tensor* weight) {
  const int64_t N = c.shape[0], C = c.shape[1], D = logp.elementCount() / (N * C);
  Tensor none = Tensor::hostAllocate(target.shape(), DataType::kF32);
  double sum = 0, wsum = 0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t d = 0; d < D; ++d) {
      const int64_t t = targetAt(target, n * D + d);
      const bool ignored = c.hasIgnore && t == c.ignoreIndex;
      const double w = ignored ? 0.0 : (weight ? weight->data<float>()[t] : 1.0);
      const double l = ignored ? 0.0 : -static_cast<double>(logp.data<float>()[(n * C + t) * D + d]) * w;
      none.data<float>()[n * D + d] = static_cast<float>(l);
      sum += l;
      wsum += w;
    }
  if (c.reduction == "none") return none;
  return tensorFrom({}, {static_cast<float>(c.reduction == "sum" ? sum : sum / wsum)});
}

Tensor logSoftmaxReference(const Tensor& x) {
  const int64_t N = x.dim(0), C = x.dim(1), D = x.elementCount() / (N * C);
  Tensor y = Tensor::hostAllocate(x.shape(), DataType::kF32);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t d = 0; d < D; ++d) {
      double sum = 0;
      for (int64_t c = 0; c < C; ++c) sum += std::exp(static_cast<double>(x.data<float>()[(n * C + c) * D + d]));
      for (int64_t c = 0; c < C; ++c)
        y.data<float>()[(n * C + c) * D + d] = static_cast<float>(x.data<float>()[(n * C + c) * D + d] - std::log(sum));
    }
  return y;
}

std::vector<LossCase> cases() {
  std::vector<LossCase> out;
  for (const Shape& s : {Shape{3, 5}, Shape{2, 7, 3}, Shape{3, 5, 2, 5}})
    for (bool weighted : {false, true})
      for (const char* red : {"none", "sum", "mean"}) {
        out.push_back({s, weighted, red, false, 0});
        out.push_back({s, weighted, red, true, 1});   // a real class, ignored
        out.push_back({s, weighted, red, true, -1});  // below the range
        out.push_back({s, weighted, red, true, 99});  // above it
      }
  return out;
}

Attributes lossAttrs(const LossCase& c) {
  Attributes a;
  a.setString("reduction", c.reduction);
  if (c.hasIgnore) a.setInt("ignore_index", c.ignoreIndex);
  return a;
}

std::string describe(const LossCase& c, DataType dt) {
  return shapeToString(c.shape) + " " + c.reduction + (c.weighted ? " weighted" : "") +
         (c.hasIgnore ? " ignore " + std::to_string(c.ignoreIndex) : "") + " " + dataTypeName(dt);
}

TEST(LossOp, NegativeLogLikelihoodAgainstNaive) {
  uint32_t seed = 1;
  for (const LossCase& c : cases()) {
    for (DataType dt : {DataType::kI64, DataType::kI32}) {
      const Tensor logp = randomTensor(c.shape, seed++, -4.f, 0.f);
      const Tensor target = targetsFor(c.shape, c.hasIgnore, c.ignoreIndex, dt);
      const Tensor weight = randomTensor({c.shape[1]}, seed++, 0.1f, 2.f);
      std::vector<Tensor> in = {logp, target};
      if (c.weighted) in.push_back(weight);
      OpRun r = runOp("NegativeLogLikelihoodLoss", in, lossAttrs(c), 1, BackendType::kCPU);
      ASSERT_TRUE(r.status.isOk()) << describe(c, dt) << ": " << r.status.message();
      EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
      expectClose(r.outputs[0], nllReference(c, logp, target, c.weighted ? &weight : nullptr), 1e-5, 1e-6,
                  describe(c, dt));
    }
  }
}

TEST(LossOp, SoftmaxCrossEntropyAgainstNaive) {
  uint32_t seed = 100;
  for (const LossCase& c : cases()) {
    const Tensor scores = randomTensor(c.shape, seed++, -3.f, 3.f);
    const Tensor target = targetsFor(c.shape, c.hasIgnore, c.ignoreIndex, DataType::kI64);
    const Tensor weight = randomTensor({c.shape[1]}, seed++, 0.1f, 2.f);
    std::vector<Tensor> in = {scores, target};
    if (c.weighted) in.push_back(weight);
    const Tensor logp = logSoftmaxReference(scores);
    for (int outputs : {1, 2}) {
      OpRun r = runOp("SoftmaxCrossEntropyLoss", in, lossAttrs(c), outputs, BackendType::kCPU);
      ASSERT_TRUE(r.status.isOk()) << describe(c, DataType::kI64) << ": " << r.status.message();
      expectClose(r.outputs[0], nllReference(c, logp, target, c.weighted ? &weight : nullptr), 1e-5, 1e-6,
                  describe(c, DataType::kI64));
      if (outputs == 2) expectClose(r.outputs[1], logp, 1e-6, 1e-6, "log_prob " + describe(c, DataType::kI64));
    }
  }
}

TEST(LossOp, BadInputsFailNamingTheNode) {
  // A target outside [0, C) that is not ignore_index.
  OpRun r = runOp("NegativeLogLikelihoodLoss", {randomTensor({2, 3}, 1), tensorFromInts({2}, {0, 3})}, {}, 1,
                  BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("target 3"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("NegativeLogLikelihoodLoss"), std::string::npos) << r.status.message();
  // Targets whose shape is not the input's without the class axis.
  EXPECT_FALSE(runOp("SoftmaxCrossEntropyLoss", {randomTensor({2, 3, 4}, 1), tensorFromInts({2, 3}, {0, 0, 0, 0, 0, 0})},
                     {}, 1, BackendType::kCPU).status.isOk());
  // A weight of the wrong length, and an unknown reduction.
  EXPECT_FALSE(runOp("NegativeLogLikelihoodLoss",
                     {randomTensor({2, 3}, 1), tensorFromInts({2}, {0, 1}), randomTensor({4}, 2)}, {}, 1,
                     BackendType::kCPU).status.isOk());
  Attributes a;
  a.setString("reduction", "average");
  EXPECT_FALSE(runOp("NegativeLogLikelihoodLoss", {randomTensor({2, 3}, 1), tensorFromInts({2}, {0, 1})}, a, 1,
                     BackendType::kCPU).status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
