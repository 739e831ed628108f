#include "ops/Dft.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "ops/ConstantIntInput.hpp"

namespace tessera {

Status DftParams::parse(const Node& node, DftParams* out) {
  DftParams p;
  p.inverse = node.attrs.getInt("inverse", 0) != 0;
  p.onesided = node.attrs.getInt("onesided", 0) != 0;
  p.axisFromInput = node.opset >= 20;
  p.axis = p.axisFromInput ? -2 : node.attrs.getInt("axis", 1);
  *out = p;
  return Status::ok();
}

Status resolveDft(const Node& node, const DftParams& p, const Shape& input, const Tensor* dftLength,
                  const Tensor* axisInput, DftGeometry* out) {
  const int64_t rank = static_cast<int64_t>(input.size());
  if (rank < 3)
    return Status::invalid(node.label() + ": the input " + shapeToString(input) +
                           " must be [batch, signal dims..., 1 or 2] (rank >= 3)");
  const int64_t channels = input[rank - 1];
  if (channels != 1 && channels != 2)
    return Status::invalid(node.label() + ": the input " + shapeToString(input) + " ends in " +
                           std::to_string(channels) + "; it must end in 1 (real) or 2 (complex)");
  int64_t axis = p.axis;
  if (p.axisFromInput && axisInput && axisInput->dtype() != DataType::kUnknown)
    TESSERA_RETURN_IF_ERROR(constantIntScalar(node, axisInput, "axis", &axis));
  const int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 1 || normalized > rank - 2)
    return Status::invalid(node.label() + ": axis " + std::to_string(axis) + " is not a signal dim of the input " +
                           shapeToString(input) + " (valid: 1.." + std::to_string(rank - 2) + " or -" +
                           std::to_string(rank - 1) + "..-2)");
  DftGeometry g;
  g.channels = channels;
  g.signal = input[normalized];
  g.length = g.signal;
  if (dftLength && dftLength->dtype() != DataType::kUnknown) {
    TESSERA_RETURN_IF_ERROR(constantIntScalar(node, dftLength, "dft_length", &g.length));
    if (g.length < 1)
      return Status::invalid(node.label() + ": dft_length " + std::to_string(g.length) + " must be positive");
  }
  if (g.length < 1)
    return Status::invalid(node.label() + ": the signal along axis " + std::to_string(axis) + " is empty");
  g.bins = p.onesided ? g.length / 2 + 1 : g.length;
  for (int64_t d = 0; d < normalized; ++d) g.outer *= input[d];
  for (int64_t d = normalized + 1; d < rank - 1; ++d) g.inner *= input[d];
  g.output = input;
  g.output[normalized] = g.bins;
  g.output[rank - 1] = 2;
  *out = g;
  return Status::ok();
}

std::vector<float> dftTwiddles(int64_t length, bool inverse) {
  std::vector<float> t(static_cast<size_t>(2 * length));
  const double step = (inverse ? 2.0 : -2.0) * 3.14159265358979323846 / static_cast<double>(length);
  for (int64_t m = 0; m < length; ++m) {
    t[2 * m] = static_cast<float>(std::cos(step * static_cast<double>(m)));
    t[2 * m + 1] = static_cast<float>(std::sin(step * static_cast<double>(m)));
  }
  return t;
}

}  // namespace tessera
