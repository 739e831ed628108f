// Elementwise unary ops and activations: which function, and its attributes.
#pragma once
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

enum class UnaryKind {
  kAbs, kNeg, kReciprocal, kFloor, kCeil, kRound, kSqrt, kExp, kLog, kSin, kCos, kTan,
  kErf, kSign, kTanh, kSigmoid, kRelu, kLeakyRelu, kElu, kSelu, kCelu, kSoftplus,
  kSoftsign, kThresholdedRelu, kHardSigmoid, kHardSwish, kIdentity,
  // Later additions go last: the GPU kernels take the kind's value as their op code.
  kAcos, kAsin, kAtan, kAcosh, kAsinh, kAtanh, kCosh, kSinh, kShrink,
};

struct UnaryParams {
  UnaryKind kind = UnaryKind::kIdentity;
  float alpha = 0.f;
  float beta = 0.f;
  float gamma = 0.f;

  // False when `opType` is not a unary op of this family.
  static bool kindOf(const std::string& opType, UnaryKind* kind);
  static Status parse(const Node& node, UnaryParams* out);
};

// The scalar function; kernels on every backend must match it.
float applyUnary(const UnaryParams& p, float x);
double applyUnary(const UnaryParams& p, double x);

}  // namespace tessera
