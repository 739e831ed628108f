// ReverseSequence: input [.., ..] with batch_axis and time_axis being 0 and 1 (either way
// round) and sequence_lens [batch] (int64, int32 taken too): for batch b the first
// sequence_lens[b] steps along time are reversed, the rest copied. A length outside
// [0, time extent] is an error.
#pragma once
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct ReverseSequenceParams {
  int64_t batchAxis = 1;
  int64_t timeAxis = 0;

  static Status parse(const Node& node, ReverseSequenceParams* out) {
    out->batchAxis = node.attrs.getInt("batch_axis", 1);
    out->timeAxis = node.attrs.getInt("time_axis", 0);
    const bool ok = (out->batchAxis == 0 && out->timeAxis == 1) || (out->batchAxis == 1 && out->timeAxis == 0);
    if (!ok)
      return Status::invalid(node.label() + ": batch_axis " + std::to_string(out->batchAxis) + " and time_axis " +
                             std::to_string(out->timeAxis) + " must be 0 and 1, one each");
    return Status::ok();
  }
};

}  // namespace tessera
