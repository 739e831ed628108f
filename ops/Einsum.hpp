// Einsum (opset 12): the equation, parsed once, and its letters resolved against the
// operands' shapes, shared by the shape function and every backend.
//
// "term,term,...->output" with letters a-z A-Z and at most one "..." per term; spaces are
// ignored. Each operand's axes take the letters of its term in order, "..." standing for
// its leading unnamed dims, which broadcast against the other operands' (right-aligned,
// numpy rules). A letter repeated in one term takes the diagonal; a letter's extents must
// agree across operands, except that 1 broadcasts. Without "->" the output is "..."
// followed by the letters used exactly once, in ASCII order (upper case first); with it,
// the output's letters must be distinct and used in the inputs, and "..." must appear in
// the output when the inputs' "..." stands for any dims. Letters not in the output are
// summed over.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct EinsumParams {
  std::vector<std::string> terms;  // one per operand; '.' stands for "..."
  std::string output;              // when explicit; '.' stands for "..."
  bool explicitOutput = false;

  static Status parse(const Node& node, EinsumParams* out);
};

// Letters are numbered: first the dims of "..." (right-aligned over all operands), then the
// named letters in order of first use.
struct EinsumDims {
  int letters = 0;
  std::vector<int64_t> size;                  // per letter
  std::vector<std::vector<bool>> present;     // per operand, per letter: named by its term
  std::vector<std::vector<int64_t>> strides;  // per operand, per letter, in elements (0 when
                                              // absent or broadcast; summed on a diagonal)
  std::vector<int> output;                    // the output's letters in order
  Shape outputShape;
};

Status resolveEinsum(const Node& node, const EinsumParams& p, const std::vector<Shape>& shapes, EinsumDims* out);

}  // namespace tessera
