// Einsum against a reference that visits every assignment of every letter: transpose,
// implicit output, trace, diagonal, sums, outer and inner products, batched products with
// the output in and out of [batch, M, N] order, letters summed from one operand, diagonals
// inside a product, "..." with broadcasting, size-1 letters broadcast, empty extents, three
// operands, upper-case letters; f32, f64, int32, int64. Malformed equations fail naming the
// node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

double valueAt(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kF64: return t.data<double>()[i];
    case DataType::kI32: return t.data<int32_t>()[i];
    case DataType::kI64: return static_cast<double>(t.data<int64_t>()[i]);
    default: return t.data<float>()[i];
  }
}

void setValue(Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
    case DataType::kF64: t.data<double>()[i] = v; break;
    case DataType::kI32: t.data<int32_t>()[i] = static_cast<int32_t>(v); break;
    case DataType::kI64: t.data<int64_t>()[i] = static_cast<int64_t>(v); break;
    default: t.data<float>()[i] = static_cast<float>(v); break;
  }
}

// Small values (integers for integer types) so sums stay exact there.
Tensor operand(const Shape& shape, uint32_t seed, DataType dt) {
  const Tensor f = randomTensor(shape, seed, -2.f, 2.f);
  Tensor t = Tensor::hostAllocate(shape, dt);
  for (int64_t i = 0; i < t.elementCount(); ++i)
    setValue(t, i, isInteger(dt) ? std::round(f.data<float>()[i] * 2) : f.data<float>()[i]);
  return t;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts(1);
  for (char c : s) {
    if (c == sep) parts.emplace_back();
    else parts.back() += c;
  }
  return parts;
}

// "..." becomes digit labels, right-aligned: '0' is the outermost of the widest one.
std::string expandEllipsis(const std::string& term, int64_t dims, int64_t widest) {
  const size_t at = term.find("...");
  if (at == std::string::npos) return term;
  std::string labels;
  for (int64_t e = widest - dims; e < widest; ++e) labels += static_cast<char>('0' + e);
  return term.substr(0, at) + labels + term.substr(at + 3);
}

Tensor einsumReference(std::string eq, const std::vector<Tensor>& xs) {
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const size_t arrow = eq.find("->");
  std::vector<std::string> terms = split(eq.substr(0, arrow), ',');
  int64_t widest = 0;
  std::vector<int64_t> dims(terms.size(), 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    const bool e = terms[i].find("...") != std::string::npos;
    dims[i] = e ? xs[i].rank() - static_cast<int64_t>(terms[i].size() - 3) : 0;
    widest = std::max(widest, dims[i]);
  }
  std::map<char, int64_t> size, uses;
  for (size_t i = 0; i < terms.size(); ++i) {
    terms[i] = expandEllipsis(terms[i], dims[i], widest);
    for (size_t a = 0; a < terms[i].size(); ++a) {
      size[terms[i][a]] = std::max(size[terms[i][a]], xs[i].dim(static_cast<int>(a)));
      ++uses[terms[i][a]];
    }
  }
  std::string out;
  if (arrow != std::string::npos) {
    out = expandEllipsis(eq.substr(arrow + 2), widest, widest);
  } else {
    for (const auto& [c, n] : uses) if (c >= '0' && c <= '9') out += c;
    for (const auto& [c, n] : uses) if (n == 1 && !(c >= '0' && c <= '9')) out += c;
  }
  Shape outShape;
  for (char c : out) outShape.push_back(size[c]);
  Tensor y = Tensor::hostAllocate(outShape, xs[0].dtype());
  std::vector<double> acc(static_cast<size_t>(y.elementCount()), 0.0);
  std::vector<char> labels;
  Shape extents;
  for (const auto& [c, n] : size) {
    labels.push_back(c);
    extents.push_back(n);
  }
  std::map<char, int64_t> at;
  for (int64_t flat = 0; flat < elementCount(extents); ++flat) {
    const std::vector<int64_t> idx = unravelIndex(flat, extents);
    for (size_t l = 0; l < labels.size(); ++l) at[labels[l]] = idx[l];
    double prod = 1;
    for (size_t i = 0; i < terms.size(); ++i) {
      std::vector<int64_t> xi;
      for (size_t a = 0; a < terms[i].size(); ++a) {
        const int64_t extent = xs[i].dim(static_cast<int>(a));
        xi.push_back(extent == 1 ? 0 : at[terms[i][a]]);
      }
      prod *= valueAt(xs[i], ravelIndex(xi, xs[i].shape()));
    }
    std::vector<int64_t> yi;
    for (char c : out) yi.push_back(at[c]);
    acc[ravelIndex(yi, outShape)] += prod;
  }
  for (int64_t i = 0; i < y.elementCount(); ++i) setValue(y, i, acc[i]);
  return y;
}

struct EinsumCase {
  std::string equation;
  std::vector<Shape> shapes;
};

TEST(EinsumOp, EquationsAgainstNaive) {
  const std::vector<EinsumCase> cases = {
      {"ij->ji", {{3, 5}}},
      {"ij", {{3, 5}}},
      {"ji", {{3, 5}}},  // implicit output "ij": a transpose
      {"ii", {{4, 4}}},
      {"ii->i", {{5, 5}}},
      {"ij->", {{3, 5}}},
      {"ij->i", {{3, 7}}},
      {"ij->j", {{3, 7}}},
      {"iij->j", {{3, 3, 2}}},
      {"bij,bjk->bik", {{3, 2, 5}, {3, 5, 4}}},
      {"bij, bjk -> bki", {{3, 2, 5}, {3, 5, 4}}},
      {"ij,jk", {{5, 7}, {7, 3}}},
      {"ij,kj->ik", {{5, 7}, {3, 7}}},
      {"ij,jk->ki", {{13, 9}, {9, 17}}},
      {"i,j->ij", {{5}, {3}}},
      {"i,j", {{5}, {3}}},
      {"i,i", {{7}, {7}}},
      {"i,i->i", {{7}, {7}}},
      {"i,i", {{7}, {1}}},
      {"ijk,ikj->i", {{2, 3, 3}, {2, 3, 3}}},
      {"abc,cd->", {{2, 3, 4}, {4, 5}}},
      {"abc,b->a", {{3, 4, 5}, {4}}},
      {"iij,jk->ik", {{3, 3, 4}, {4, 5}}},
      {"Ab,bA->A", {{3, 4}, {4, 3}}},
      {"...ij,...jk->...ik", {{2, 1, 3, 4}, {5, 4, 6}}},
      {"...ij,...jk", {{2, 3, 4}, {4, 6}}},
      {"i...,i...->...", {{3, 2, 5}, {3, 1, 5}}},
      {"...ii->...i", {{3, 5, 5}}},
      {"...ii", {{2, 3, 4, 4}}},
      {"...", {{2, 3}}},
      {"ij,jk->ik", {{3, 0}, {0, 4}}},
      {"ij,jk,kl->il", {{3, 4}, {4, 5}, {5, 2}}},
      {"i,i,i", {{6}, {6}, {6}}},
      {"ab,bc,cd,de->ae", {{2, 3}, {3, 2}, {2, 3}, {3, 2}}},
      {"...a,a...->...", {{2, 3, 4}, {4, 2, 3}}},
  };
  uint32_t seed = 1;
  for (const EinsumCase& c : cases) {
    for (DataType dt : {DataType::kF32, DataType::kF64, DataType::kI32, DataType::kI64}) {
      std::vector<Tensor> xs;
      for (const Shape& s : c.shapes) xs.push_back(operand(s, seed++, dt));
      Attributes a;
      a.setString("equation", c.equation);
      const std::string what = c.equation + " " + dataTypeName(dt);
      OpRun r = runOp("Einsum", xs, a, 1, BackendType::kCPU, {}, 12);
      ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
      EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
      expectClose(r.outputs[0], einsumReference(c.equation, xs), dt == DataType::kF64 ? 1e-12 : 1e-5, 1e-5, what);
    }
  }
}

TEST(EinsumOp, LargerProductOnGemm) {
  // Big enough for several GEMM panels and threads, with a permuted output.
  const std::vector<Tensor> xs = {operand({4, 37, 29}, 7, DataType::kF32), operand({29, 4, 41}, 8, DataType::kF32)};
  Attributes a;
  a.setString("equation", "bmk,kbn->nbm");
  OpRun r = runOp("Einsum", xs, a, 1, BackendType::kCPU, {}, 12);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectClose(r.outputs[0], einsumReference("bmk,kbn->nbm", xs), 1e-4, 1e-4, "bmk,kbn->nbm");
}

void expectBad(const std::string& equation, const std::vector<Shape>& shapes, const std::string& cause) {
  std::vector<Tensor> xs;
  for (const Shape& s : shapes) xs.push_back(randomTensor(s, 1));
  Attributes a;
  a.setString("equation", equation);
  OpRun r = runOp("Einsum", xs, a, 1, BackendType::kCPU, {}, 12);
  ASSERT_FALSE(r.status.isOk()) << equation;
  EXPECT_NE(r.status.message().find("Einsum"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find(cause), std::string::npos) << equation << ": " << r.status.message();
}

TEST(EinsumOp, MalformedEquationsFailNamingTheNode) {
  expectBad("ij$->i", {{2, 3}}, "character '$'");
  expectBad("i1,i", {{2, 3}, {2}}, "character '1'");
  expectBad("ij..->i", {{2, 3}}, "not part of '...'");
  expectBad("...i...->i", {{2, 3}}, "more than one '...'");
  expectBad("ij,jk->ik", {{2, 3}}, "2 operand(s) but the node has 1 input(s)");
  expectBad("ij", {{2, 3}, {3}}, "1 operand(s) but the node has 2 input(s)");
  expectBad("ij,jk", {{3, 4}, {5, 2}}, "letter 'j'");
  expectBad("ii", {{3, 4}}, "letter 'i'");
  expectBad("ij->k", {{3, 4}}, "output letter 'k' is not in any input");
  expectBad("ij->ii", {{3, 4}}, "appears twice");
  expectBad("ijk", {{3, 4}}, "name 3 dims");
  expectBad("...i->i", {{2, 3}}, "no '...'");
  expectBad("...i,...i", {{2, 3}, {4, 3}}, "'...' dims");
  // No equation at all.
  OpRun r = runOp("Einsum", {randomTensor({2}, 1)}, {}, 1, BackendType::kCPU, {}, 12);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("equation"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
