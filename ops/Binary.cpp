#include "ops/Binary.hpp"

#include <map>

namespace tessera {

bool BinaryParams::kindOf(const std::string& opType, BinaryKind* kind) {
  static const std::map<std::string, BinaryKind> kinds = {
      {"Add", BinaryKind::kAdd}, {"Sub", BinaryKind::kSub}, {"Mul", BinaryKind::kMul},
      {"Div", BinaryKind::kDiv}, {"Pow", BinaryKind::kPow}, {"Max", BinaryKind::kMax},
      {"Min", BinaryKind::kMin}, {"Sum", BinaryKind::kSum}, {"Mean", BinaryKind::kMean},
  };
  auto it = kinds.find(opType);
  if (it == kinds.end()) return false;
  *kind = it->second;
  return true;
}

Status BinaryParams::parse(const Node& node, BinaryParams* out) {
  BinaryParams p;
  if (!kindOf(node.opType, &p.kind)) return Status::internal(node.label() + ": not a binary op");
  if (node.attrs.getInt("broadcast", 0) != 0 || node.attrs.has("axis")) {
    return Status::unsupported(node.label() +
                               ": the legacy 'broadcast'/'axis' attributes (opset < 7) are "
                               "not supported; use numpy-style broadcasting");
  }
  *out = p;
  return Status::ok();
}

}  // namespace tessera
