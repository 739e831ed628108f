#include "ops/MatMul.hpp"

#include <utility>

namespace tessera {

Status resolveMatMul(const Shape& a, const Shape& b, MatMulShape* out) {
  if (a.empty() || b.empty())
    return Status::invalid("MatMul needs inputs of rank >= 1, got A " + shapeToString(a) + " and B " + shapeToString(b));
  MatMulShape s;
  const bool aVector = a.size() == 1, bVector = b.size() == 1;
  s.M = aVector ? 1 : a[a.size() - 2];
  s.K = a.back();
  const int64_t kb = bVector ? b[0] : b[b.size() - 2];
  s.N = bVector ? 1 : b.back();
  if (s.K != kb)
    return Status::invalid("inner dimensions differ: A " + shapeToString(a) + " has " + std::to_string(s.K) +
                           " columns but B " + shapeToString(b) + " has " + std::to_string(kb) + " rows");
  if (a.size() > 2) s.aBatch.assign(a.begin(), a.end() - 2);
  if (b.size() > 2) s.bBatch.assign(b.begin(), b.end() - 2);
  if (!broadcastShapes(s.aBatch, s.bBatch, &s.batch))
    return Status::invalid("batch dimensions of A " + shapeToString(a) + " and B " + shapeToString(b) +
                           " do not broadcast");
  s.output = s.batch;
  if (!aVector) s.output.push_back(s.M);
  if (!bVector) s.output.push_back(s.N);
  *out = s;
  return Status::ok();
}

bool matMulTransB(const Node& node) { return node.attrs.getInt("transB", 0) != 0; }

float matMulAlpha(const Node& node) { return node.attrs.getFloat("alpha", 1.f); }

Shape matMulB(const Shape& stored, bool transB) {
  Shape b = stored;
  if (transB && b.size() >= 2) std::swap(b[b.size() - 1], b[b.size() - 2]);
  return b;
}

}  // namespace tessera
