#include "ops/Recurrent.hpp"

#include <algorithm>
#include <cctype>

namespace tessera {
namespace {

struct ActivationInfo {
  const char* name;  // lower case
  RecurrentActivation::Kind kind;
  int alphas, betas;  // how many of activation_alpha / activation_beta it takes (0 or 1)
  float alpha, beta;  // the defaults of the ONNX op of that name
};

constexpr ActivationInfo kActivations[] = {
    {"relu", RecurrentActivation::kRelu, 0, 0, 0.f, 0.f},
    {"tanh", RecurrentActivation::kTanh, 0, 0, 0.f, 0.f},
    {"sigmoid", RecurrentActivation::kSigmoid, 0, 0, 0.f, 0.f},
    {"affine", RecurrentActivation::kAffine, 1, 1, 1.f, 0.f},
    {"leakyrelu", RecurrentActivation::kLeakyRelu, 1, 0, 0.01f, 0.f},
    {"thresholdedrelu", RecurrentActivation::kThresholdedRelu, 1, 0, 1.f, 0.f},
    {"scaledtanh", RecurrentActivation::kScaledTanh, 1, 1, 1.f, 1.f},
    {"hardsigmoid", RecurrentActivation::kHardSigmoid, 1, 1, 0.2f, 0.5f},
    {"elu", RecurrentActivation::kElu, 1, 0, 1.f, 0.f},
    {"softsign", RecurrentActivation::kSoftsign, 0, 0, 0.f, 0.f},
    {"softplus", RecurrentActivation::kSoftplus, 0, 0, 0.f, 0.f},
};

const ActivationInfo* findActivation(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const ActivationInfo& a : kActivations)
    if (name == a.name) return &a;
  return nullptr;
}

std::vector<std::string> stringsAttr(const Node& node, const char* name) {
  const Attribute* a = node.attrs.find(name);
  if (!a) return {};
  if (a->kind == Attribute::Kind::kString) return {a->s};
  return a->strings;
}

}  // namespace

bool RecurrentParams::kindOf(const std::string& opType, RecurrentKind* kind) {
  if (opType == "RNN") *kind = RecurrentKind::kRnn;
  else if (opType == "GRU") *kind = RecurrentKind::kGru;
  else if (opType == "LSTM") *kind = RecurrentKind::kLstm;
  else return false;
  return true;
}

Status RecurrentParams::parse(const Node& node, RecurrentParams* out) {
  RecurrentParams p;
  if (!kindOf(node.opType, &p.kind)) return Status::invalid(node.label() + ": not RNN, GRU or LSTM");
  const std::string dir = node.attrs.getString("direction", "forward");
  if (dir == "forward") p.direction = Direction::kForward;
  else if (dir == "reverse") p.direction = Direction::kReverse;
  else if (dir == "bidirectional") p.direction = Direction::kBidirectional;
  else return Status::invalid(node.label() + ": direction '" + dir + "' is not forward, reverse or bidirectional");

  p.hiddenSize = node.attrs.getInt("hidden_size", 0);
  if (node.attrs.has("hidden_size") && p.hiddenSize <= 0)
    return Status::invalid(node.label() + ": hidden_size " + std::to_string(p.hiddenSize) + " must be positive");
  p.layout = node.attrs.getInt("layout", 0);
  if (p.layout != 0 && p.layout != 1)
    return Status::invalid(node.label() + ": layout " + std::to_string(p.layout) + " is not 0 or 1");
  p.hasClip = node.attrs.has("clip");
  p.clip = node.attrs.getFloat("clip", 0.f);
  if (p.hasClip && !(p.clip > 0.f))
    return Status::invalid(node.label() + ": clip " + std::to_string(p.clip) + " must be positive");
  p.inputForget = node.attrs.getInt("input_forget", 0) != 0;
  p.linearBeforeReset = node.attrs.getInt("linear_before_reset", 0) != 0;

  // The activation names, defaults when absent; a bidirectional node may give one
  // direction's list (with its alphas and betas) for both.
  std::vector<std::string> names = stringsAttr(node, "activations");
  if (names.empty())
    names = p.kind == RecurrentKind::kRnn ? std::vector<std::string>{"Tanh"}
            : p.kind == RecurrentKind::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                            : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  const size_t perDir = static_cast<size_t>(p.functionsPerDirection());
  const size_t total = perDir * static_cast<size_t>(p.numDirections());
  if (names.size() != perDir && names.size() != total)
    return Status::invalid(node.label() + ": " + std::to_string(names.size()) + " activations given, " +
                           node.opType + " " + dir + " takes " + std::to_string(total));
  const std::vector<float> alphas = node.attrs.getFloats("activation_alpha");
  const std::vector<float> betas = node.attrs.getFloats("activation_beta");
  size_t ai = 0, bi = 0;
  for (const std::string& name : names) {
    const ActivationInfo* info = findActivation(name);
    if (!info)
      return Status::invalid(node.label() + ": activation '" + name + "' is not one ONNX lists for " + node.opType);
    RecurrentActivation a;
    a.kind = info->kind;
    a.alpha = info->alphas && ai < alphas.size() ? alphas[ai++] : info->alpha;
    a.beta = info->betas && bi < betas.size() ? betas[bi++] : info->beta;
    p.activations.push_back(a);
  }
  while (p.activations.size() < total) p.activations.push_back(p.activations[p.activations.size() - perDir]);
  *out = std::move(p);
  return Status::ok();
}

}  // namespace tessera
