#include "ops/Stft.hpp"

#include <string>
#include <vector>

#include "ops/ConstantIntInput.hpp"

namespace tessera {

static bool present(const Tensor* t) { return t && t->dtype() != DataType::kUnknown; }

Status resolveStft(const Node& node, const StftParams& p, const Tensor& signal, const Tensor* frameStep,
                   const Tensor* window, const Tensor* frameLength, StftGeometry* out) {
  const Shape& s = signal.shape();
  if (s.size() != 3 || (s[2] != 1 && s[2] != 2))
    return Status::invalid(node.label() + ": the signal " + signal.describe() +
                           " must be [batch, length, 1 or 2]");
  StftGeometry g;
  g.batch = s[0];
  g.length = s[1];
  g.channels = s[2];
  if (!present(frameStep)) return Status::invalid(node.label() + ": the 'frame_step' input is missing");
  TESSERA_RETURN_IF_ERROR(constantIntScalar(node, frameStep, "frame_step", &g.step));
  if (g.step < 1) return Status::invalid(node.label() + ": frame_step " + std::to_string(g.step) + " must be positive");
  g.windowed = present(window);
  if (g.windowed) {
    if (window->rank() != 1 || window->dtype() != signal.dtype())
      return Status::invalid(node.label() + ": the window " + window->describe() +
                             " must be 1-D in the signal's dtype");
    g.frameLength = window->dim(0);
  }
  if (present(frameLength)) {
    int64_t f = 0;
    TESSERA_RETURN_IF_ERROR(constantIntScalar(node, frameLength, "frame_length", &f));
    if (g.windowed && f != g.frameLength)
      return Status::invalid(node.label() + ": frame_length " + std::to_string(f) + " differs from the window's length " +
                             std::to_string(g.frameLength));
    g.frameLength = f;
  } else if (!g.windowed) {
    return Status::invalid(node.label() + ": needs a window or a frame_length");
  }
  if (g.frameLength < 1 || g.frameLength > g.length)
    return Status::invalid(node.label() + ": the frame length " + std::to_string(g.frameLength) +
                           " must be in [1, " + std::to_string(g.length) + "] (the signal's length)");
  g.frames = (g.length - g.frameLength) / g.step + 1;
  g.bins = p.onesided ? g.frameLength / 2 + 1 : g.frameLength;
  g.output = {g.batch, g.frames, g.bins, 2};
  *out = g;
  return Status::ok();
}

}  // namespace tessera
