#include "ops/Unary.hpp"
#include "ops/UnaryMath.hpp"

#include <map>

namespace tessera {

bool UnaryParams::kindOf(const std::string& opType, UnaryKind* kind) {
  static const std::map<std::string, UnaryKind> kinds = {
      {"Abs", UnaryKind::kAbs}, {"Neg", UnaryKind::kNeg},
      {"Reciprocal", UnaryKind::kReciprocal}, {"Floor", UnaryKind::kFloor},
      {"Ceil", UnaryKind::kCeil}, {"Round", UnaryKind::kRound}, {"Sqrt", UnaryKind::kSqrt},
      {"Exp", UnaryKind::kExp}, {"Log", UnaryKind::kLog}, {"Sin", UnaryKind::kSin},
      {"Cos", UnaryKind::kCos}, {"Tan", UnaryKind::kTan}, {"Erf", UnaryKind::kErf},
      {"Sign", UnaryKind::kSign}, {"Tanh", UnaryKind::kTanh},
      {"Sigmoid", UnaryKind::kSigmoid}, {"Relu", UnaryKind::kRelu},
      {"LeakyRelu", UnaryKind::kLeakyRelu}, {"Elu", UnaryKind::kElu},
      {"Selu", UnaryKind::kSelu}, {"Celu", UnaryKind::kCelu},
      {"Softplus", UnaryKind::kSoftplus}, {"Softsign", UnaryKind::kSoftsign},
      {"ThresholdedRelu", UnaryKind::kThresholdedRelu},
      {"HardSigmoid", UnaryKind::kHardSigmoid}, {"HardSwish", UnaryKind::kHardSwish},
      {"Identity", UnaryKind::kIdentity}, {"Acos", UnaryKind::kAcos}, {"Asin", UnaryKind::kAsin},
      {"Atan", UnaryKind::kAtan}, {"Acosh", UnaryKind::kAcosh}, {"Asinh", UnaryKind::kAsinh},
      {"Atanh", UnaryKind::kAtanh}, {"Cosh", UnaryKind::kCosh}, {"Sinh", UnaryKind::kSinh},
      {"Shrink", UnaryKind::kShrink},
  };
  auto it = kinds.find(opType);
  if (it == kinds.end()) return false;
  *kind = it->second;
  return true;
}

Status UnaryParams::parse(const Node& node, UnaryParams* out) {
  UnaryParams p;
  if (!kindOf(node.opType, &p.kind)) return Status::internal(node.label() + ": not a unary op");
  const Attributes& a = node.attrs;
  switch (p.kind) {
    case UnaryKind::kLeakyRelu: p.alpha = a.getFloat("alpha", 0.01f); break;
    case UnaryKind::kElu: p.alpha = a.getFloat("alpha", 1.0f); break;
    case UnaryKind::kCelu: p.alpha = a.getFloat("alpha", 1.0f); break;
    case UnaryKind::kThresholdedRelu: p.alpha = a.getFloat("alpha", 1.0f); break;
    case UnaryKind::kSelu:
      p.alpha = a.getFloat("alpha", 1.67326319217681884765625f);
      p.gamma = a.getFloat("gamma", 1.05070102214813232421875f);
      break;
    case UnaryKind::kHardSigmoid:
      p.alpha = a.getFloat("alpha", 0.2f);
      p.beta = a.getFloat("beta", 0.5f);
      break;
    case UnaryKind::kShrink:  // alpha: lambd, beta: bias
      p.alpha = a.getFloat("lambd", 0.5f);
      p.beta = a.getFloat("bias", 0.0f);
      break;
    default: break;
  }
  *out = p;
  return Status::ok();
}

float applyUnary(const UnaryParams& p, float x) {
  float y = x;
  dispatchUnaryKind(p.kind, [&](auto k) { y = unaryScalar<decltype(k)::value>(p, x); });
  return y;
}
double applyUnary(const UnaryParams& p, double x) {
  double y = x;
  dispatchUnaryKind(p.kind, [&](auto k) { y = unaryScalar<decltype(k)::value>(p, x); });
  return y;
}

}  // namespace tessera
