// STFT (opset 17) and the geometry every backend follows.
//
// The signal is [batch, length, C], C = 1 (real) or 2 (complex as re, im); frame_step is a
// positive scalar; the optional window is [W] (real); the optional scalar frame_length F
// must equal W when both are given, and one of them is required. Frame f covers samples
// [f*step, f*step + F), multiplied by the window when there is one, and is transformed by a
// forward DFT of length F. There are (length - F) / step + 1 frames (F <= length).
// onesided = 1 (the default) keeps bins [0, F/2]. The output is [batch, frames, bins, 2]
// in the signal's dtype.
#pragma once
#include <cstdint>

#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

struct StftParams {
  bool onesided = true;

  static Status parse(const Node& node, StftParams* out) {
    out->onesided = node.attrs.getInt("onesided", 1) != 0;
    return Status::ok();
  }
};

struct StftGeometry {
  int64_t batch = 0, length = 0, channels = 1;
  int64_t step = 1, frameLength = 0, frames = 0, bins = 0;
  bool windowed = false;
  Shape output;
};

// Checks the inputs' shapes and reads frame_step and frame_length, which must be constant
// when planned (constantIntInput asks the Session for their values).
Status resolveStft(const Node& node, const StftParams& p, const Tensor& signal, const Tensor* frameStep,
                   const Tensor* window, const Tensor* frameLength, StftGeometry* out);

}  // namespace tessera
