// Transpose: output dim i is input dim perm[i]; no perm reverses the dimensions.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct TransposeParams {
  std::vector<int64_t> perm;  // empty = reversed

  static Status parse(const Node& node, TransposeParams* out) {
    out->perm = node.attrs.getInts("perm");
    return Status::ok();
  }

  // The permutation for an input of `rank`, or an error if 'perm' is not one.
  Status resolve(const Node& node, int64_t rank, std::vector<int64_t>* out) const {
    std::vector<int64_t> p = perm;
    if (p.empty())
      for (int64_t i = rank - 1; i >= 0; --i) p.push_back(i);
    if (static_cast<int64_t>(p.size()) != rank)
      return Status::invalid(node.label() + ": 'perm' has " + std::to_string(p.size()) +
                             " entries but the input has rank " + std::to_string(rank));
    std::vector<bool> seen(rank, false);
    for (int64_t& a : p) {
      if (a < 0) a += rank;  // tolerated: some exporters write negative axes
      if (a < 0 || a >= rank || seen[a])
        return Status::invalid(node.label() + ": 'perm' is not a permutation of 0.." +
                               std::to_string(rank - 1));
      seen[a] = true;
    }
    *out = std::move(p);
    return Status::ok();
  }
};

}  // namespace tessera
