#include "ops/Unary.hpp"

#include <cmath>
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
      {"Identity", UnaryKind::kIdentity},
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
    default: break;
  }
  *out = p;
  return Status::ok();
}

template <typename T>
static T apply(const UnaryParams& p, T x) {
  switch (p.kind) {
    case UnaryKind::kAbs: return std::fabs(x);
    case UnaryKind::kNeg: return -x;
    case UnaryKind::kReciprocal: return T(1) / x;
    case UnaryKind::kFloor: return std::floor(x);
    case UnaryKind::kCeil: return std::ceil(x);
    case UnaryKind::kRound: return std::nearbyint(x);  // half to even (default rounding mode)
    case UnaryKind::kSqrt: return std::sqrt(x);
    case UnaryKind::kExp: return std::exp(x);
    case UnaryKind::kLog: return std::log(x);
    case UnaryKind::kSin: return std::sin(x);
    case UnaryKind::kCos: return std::cos(x);
    case UnaryKind::kTan: return std::tan(x);
    case UnaryKind::kErf: return std::erf(x);
    case UnaryKind::kSign: return x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0));
    case UnaryKind::kTanh: return std::tanh(x);
    case UnaryKind::kSigmoid:
      // Split by sign so exp never overflows.
      return x >= T(0) ? T(1) / (T(1) + std::exp(-x)) : std::exp(x) / (T(1) + std::exp(x));
    case UnaryKind::kRelu: return x > T(0) ? x : T(0);
    case UnaryKind::kLeakyRelu: return x >= T(0) ? x : T(p.alpha) * x;
    case UnaryKind::kElu: return x >= T(0) ? x : T(p.alpha) * (std::exp(x) - T(1));
    case UnaryKind::kSelu:
      return T(p.gamma) * (x > T(0) ? x : T(p.alpha) * (std::exp(x) - T(1)));
    case UnaryKind::kCelu:
      return std::max(T(0), x) + std::min(T(0), T(p.alpha) * (std::exp(x / T(p.alpha)) - T(1)));
    case UnaryKind::kSoftplus:
      return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    case UnaryKind::kSoftsign: return x / (T(1) + std::fabs(x));
    case UnaryKind::kThresholdedRelu: return x > T(p.alpha) ? x : T(0);
    case UnaryKind::kHardSigmoid:
      return std::max(T(0), std::min(T(1), T(p.alpha) * x + T(p.beta)));
    case UnaryKind::kHardSwish:
      return x * std::max(T(0), std::min(T(1), x / T(6) + T(0.5)));
    case UnaryKind::kIdentity: return x;
  }
  return x;
}

float applyUnary(const UnaryParams& p, float x) { return apply<float>(p, x); }
double applyUnary(const UnaryParams& p, double x) { return apply<double>(p, x); }

}  // namespace tessera
