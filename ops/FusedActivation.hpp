// An activation folded into the op before it (Conv), as ONNX Runtime's FusedConv writes it:
// attribute `activation` (Relu, Clip, LeakyRelu, Sigmoid, HardSigmoid, HardSwish, Swish:
// x * Sigmoid(alpha * x), which ONNX writes out in two or three nodes, Gelu: x/2 (1 +
// erf(x / sqrt 2)), five nodes in a PyTorch export, and GeluTanh: x/2 (1 + tanh(sqrt(2/pi)
// (x + 0.044715 x^3))), eight in GPT-2's; tools/onnx/FuseConvGelu) and
// `activation_params` (Clip: min, max; LeakyRelu: alpha; HardSigmoid: alpha, beta; Swish: alpha). Set by
// the import pass tools/onnx/FuseConvActivation; every backend's Conv applies it. A scalar
// scale and shift may follow the activation (`activation_affine` = [scale, shift], pass
// tools/onnx/FuseActivationAffine): y = scale * activation(x) + shift.
#pragma once
#include <cmath>
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct FusedActivation {
  // The numeric codes are the kernels' too (shaders/vulkan/common.glsl `activate`).
  enum Kind { kNone = 0, kRelu = 1, kClip = 2, kLeakyRelu = 3, kSigmoid = 4, kHardSigmoid = 5, kHardSwish = 6,
              kSwish = 7, kGelu = 8, kGeluTanh = 9 };
  Kind kind = kNone;
  float alpha = 0.f, beta = 0.f;
  float scale = 1.f, shift = 0.f;  // applied after the activation

  bool hasAffine() const { return scale != 1.f || shift != 0.f; }

  // Reads the attributes of `node` (none: kNone); an unknown activation is an error. An op
  // with two activations names the second's attributes with a prefix (SqueezeExcite's
  // `hidden_activation`, ...).
  static Status parse(const Node& node, FusedActivation* out, const std::string& prefix = "");
  // The node attributes for `op` (one of the kinds' ONNX names) with `params`.
  static void set(Node* node, const std::string& op, const std::vector<float>& params,
                  const std::string& prefix = "");

  float apply(float v) const { return hasAffine() ? activate(v) * scale + shift : activate(v); }
  float activate(float v) const {
    switch (kind) {
      case kRelu: return v > 0.f ? v : 0.f;
      case kClip: return v < alpha ? alpha : (v > beta ? beta : v);
      case kLeakyRelu: return v >= 0.f ? v : alpha * v;
      case kSigmoid: return 1.f / (1.f + std::exp(-v));
      case kHardSigmoid: return std::fmax(0.f, std::fmin(1.f, alpha * v + beta));
      case kHardSwish: return v * std::fmax(0.f, std::fmin(1.f, (v + 3.f) * (1.f / 6.f)));
      case kSwish: return v * (1.f / (1.f + std::exp(-alpha * v)));
      case kGelu: return 0.5f * v * (1.f + std::erf(v * 0.70710678f));
      case kGeluTanh: return 0.5f * v * (1.f + std::tanh((v + 0.044715f * v * v * v) * 0.7978845608f));
      case kNone: break;
    }
    return v;
  }
};

}  // namespace tessera
