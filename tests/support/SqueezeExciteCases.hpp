// SqueezeExcite (ops/SqueezeExcite.hpp) cases and a naive reference, shared by the op's CPU
// test and its GPU suites: awkward channel counts (1, 5, 13, a block of 4, 96 -> 24 as in
// PP-OCRv4 det), odd planes, batch > 1, biases omitted, the activations the models use.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {

struct SqueezeExciteCase {
  std::string what;
  Shape x;             // [N, C, H, W]
  int64_t hidden;      // C1
  bool biases;
  std::string hiddenActivation, gateActivation;  // FusedActivation names ("" none)
  std::vector<float> hiddenParams, gateParams;
  std::vector<float> gateAffine = {};  // scale, shift after the gate's activation
};

inline std::vector<SqueezeExciteCase> squeezeExciteCases() {
  return {
      {"C 13 -> 3, Relu / HardSigmoid, batch 3", {3, 13, 5, 7}, 3, true, "Relu", "HardSigmoid", {}, {0.2f, 0.5f}},
      {"C 5 -> 2, no biases, none / Sigmoid", {2, 5, 9, 1}, 2, false, "", "Sigmoid", {}, {}},
      {"C 1 -> 1, Clip / HardSigmoid 1/6", {1, 1, 3, 3}, 1, true, "Clip", "HardSigmoid", {0.f, 6.f}, {1.f / 6, 0.5f}},
      {"C 4 -> 4, a plane past a tile", {1, 4, 37, 41}, 4, true, "Relu", "HardSigmoid", {}, {0.2f, 0.5f}},
      {"C 7 -> 2, a residual's gate + 1", {2, 7, 6, 5}, 2, true, "Relu", "HardSigmoid", {}, {0.2f, 0.5f}, {1.f, 1.f}},
      {"C 6 -> 3, a gate scaled and shifted", {1, 6, 4, 4}, 3, false, "Relu", "Sigmoid", {}, {}, {0.5f, -0.25f}},
      {"C 96 -> 24, PP-OCRv4 det's neck", {1, 96, 20, 20}, 24, true, "Relu", "HardSigmoid", {}, {0.2f, 0.5f}},
      {"C 200 -> 50, the classifier's last", {2, 200, 2, 11}, 50, true, "Relu", "HardSigmoid", {}, {0.2f, 0.5f}},
  };
}

struct SqueezeExciteRun {
  std::vector<Tensor> inputs;  // X, pooled, W1, B1, W2, B2 (dtype kUnknown: omitted)
  Attributes attrs;
  std::vector<bool> constant;  // the weights are initializers, as the import pass makes them
};

// pooledGiven false: the node omits `pooled` and the op takes X's channel means itself.
inline SqueezeExciteRun squeezeExciteRun(const SqueezeExciteCase& c, uint32_t seed, bool pooledGiven = true) {
  const int64_t N = c.x[0], C = c.x[1], C1 = c.hidden;
  const Tensor omitted(Shape{}, DataType::kUnknown);
  SqueezeExciteRun r;
  r.inputs = {randomTensor(c.x, seed, -3.f, 3.f), pooledGiven ? randomTensor({N, C, 1, 1}, seed + 1, -2.f, 2.f) : omitted,
              randomTensor({C1, C, 1, 1}, seed + 2), c.biases ? randomTensor({C1}, seed + 3) : omitted,
              randomTensor({C, C1, 1, 1}, seed + 4), c.biases ? randomTensor({C}, seed + 5) : omitted};
  if (!c.hiddenActivation.empty()) r.attrs.setString("hidden_activation", c.hiddenActivation);
  if (!c.hiddenParams.empty()) r.attrs.setFloats("hidden_activation_params", c.hiddenParams);
  if (!c.gateActivation.empty()) r.attrs.setString("activation", c.gateActivation);
  if (!c.gateParams.empty()) r.attrs.setFloats("activation_params", c.gateParams);
  if (!c.gateAffine.empty()) r.attrs.setFloats("activation_affine", c.gateAffine);
  r.constant = {false, false, true, true, true, true};
  return r;
}

// The activations written out here, not taken from the library.
inline float referenceActivation(const std::string& name, const std::vector<float>& p, float v) {
  if (name == "Relu") return std::max(v, 0.f);
  if (name == "Clip") return std::min(std::max(v, p[0]), p[1]);
  if (name == "Sigmoid") return static_cast<float>(1.0 / (1.0 + std::exp(-double(v))));
  if (name == "HardSigmoid") return std::min(1.f, std::max(0.f, p[0] * v + p[1]));
  return v;
}

inline Tensor squeezeExciteReference(const SqueezeExciteCase& c, const SqueezeExciteRun& r) {
  const int64_t N = c.x[0], C = c.x[1], C1 = c.hidden, plane = c.x[2] * c.x[3];
  const float* x = r.inputs[0].data<float>();
  // The given pooled vector, or X's channel means (in double) where the node omits it.
  std::vector<float> means(N * C);
  for (int64_t i = 0; i < N * C; ++i) {
    double s = 0;
    for (int64_t k = 0; k < plane; ++k) s += x[i * plane + k];
    means[i] = plane ? static_cast<float>(s / double(plane)) : 0.f;
  }
  const float* p = r.inputs[1].dtype() == DataType::kUnknown ? means.data() : r.inputs[1].data<float>();
  const float* w1 = r.inputs[2].data<float>();
  const float* w2 = r.inputs[4].data<float>();
  Tensor y = Tensor::hostAllocate(c.x, DataType::kF32);
  std::vector<double> hidden(C1);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t j = 0; j < C1; ++j) {
      double s = c.biases ? r.inputs[3].data<float>()[j] : 0.0;
      for (int64_t ch = 0; ch < C; ++ch) s += double(w1[j * C + ch]) * p[n * C + ch];
      hidden[j] = referenceActivation(c.hiddenActivation, c.hiddenParams, static_cast<float>(s));
    }
    for (int64_t ch = 0; ch < C; ++ch) {
      double s = c.biases ? r.inputs[5].data<float>()[ch] : 0.0;
      for (int64_t j = 0; j < C1; ++j) s += double(w2[ch * C1 + j]) * hidden[j];
      float gate = referenceActivation(c.gateActivation, c.gateParams, static_cast<float>(s));
      if (!c.gateAffine.empty()) gate = gate * c.gateAffine[0] + c.gateAffine[1];
      for (int64_t i = 0; i < plane; ++i)
        y.data<float>()[(n * C + ch) * plane + i] = x[(n * C + ch) * plane + i] * gate;
    }
  }
  return y;
}

}  // namespace test
}  // namespace tessera
