#include "ops/FusedActivation.hpp"

#include <vector>

namespace tessera {

Status FusedActivation::parse(const Node& node, FusedActivation* out, const std::string& prefix) {
  FusedActivation a;
  const std::string name = node.attrs.getString(prefix + "activation", "");
  const std::vector<float> p = node.attrs.getFloats(prefix + "activation_params");
  auto param = [&](size_t i, float def) { return i < p.size() ? p[i] : def; };
  if (name.empty()) {
  } else if (name == "Relu") {
    a.kind = kRelu;
  } else if (name == "Clip") {
    a.kind = kClip;
    a.alpha = param(0, -3.402823466e38f);
    a.beta = param(1, 3.402823466e38f);
  } else if (name == "LeakyRelu") {
    a.kind = kLeakyRelu;
    a.alpha = param(0, 0.01f);
  } else if (name == "Sigmoid") {
    a.kind = kSigmoid;
  } else if (name == "HardSigmoid") {
    a.kind = kHardSigmoid;
    a.alpha = param(0, 0.2f);
    a.beta = param(1, 0.5f);
  } else if (name == "HardSwish") {
    a.kind = kHardSwish;
  } else if (name == "Swish") {
    a.kind = kSwish;
    a.alpha = param(0, 1.f);
  } else if (name == "Gelu") {
    a.kind = kGelu;
  } else if (name == "GeluTanh") {
    a.kind = kGeluTanh;
  } else {
    return Status::unsupported(node.label() + ": fused activation '" + name + "' is not supported");
  }
  if (node.attrs.has(prefix + "activation_affine")) {
    const std::vector<float> affine = node.attrs.getFloats(prefix + "activation_affine");
    if (affine.size() != 2)
      return Status::invalid(node.label() + ": " + prefix + "activation_affine needs 2 values (scale, shift), got " +
                                     std::to_string(affine.size()));
    a.scale = affine[0];
    a.shift = affine[1];
  }
  *out = a;
  return Status::ok();
}

void FusedActivation::set(Node* node, const std::string& op, const std::vector<float>& params,
                          const std::string& prefix) {
  node->attrs.setString(prefix + "activation", op);
  if (!params.empty()) node->attrs.setFloats(prefix + "activation_params", params);
}

}  // namespace tessera
