#include "ops/MelWeightMatrix.hpp"

#include <cmath>

#include "ops/ConstantIntInput.hpp"

namespace tessera {

Status resolveMelWeightMatrix(const Node& node, const Tensor* numMelBins, const Tensor* dftLength, int64_t* mels,
                              int64_t* length) {
  TESSERA_RETURN_IF_ERROR(constantIntScalar(node, numMelBins, "num_mel_bins", mels));
  TESSERA_RETURN_IF_ERROR(constantIntScalar(node, dftLength, "dft_length", length));
  if (*mels < 1) return Status::invalid(node.label() + ": num_mel_bins " + std::to_string(*mels) + " must be positive");
  if (*length < 1) return Status::invalid(node.label() + ": dft_length " + std::to_string(*length) + " must be positive");
  return Status::ok();
}

namespace {

double scalarValue(const Tensor& t) {
  switch (t.dtype()) {
    case DataType::kF32: return t.data<float>()[0];
    case DataType::kF64: return t.data<double>()[0];
    case DataType::kF16: return halfToFloat(t.data<uint16_t>()[0]);
    case DataType::kBF16: return bfloat16ToFloat(t.data<uint16_t>()[0]);
    case DataType::kI32: return t.data<int32_t>()[0];
    case DataType::kI64: return static_cast<double>(t.data<int64_t>()[0]);
    default: return NAN;
  }
}

// hz -> mel in float when the edges are f32 (the reference's numpy keeps f32 scalars f32).
template <typename T>
T toMel(T hz) {
  return T(2595) * std::log10(T(1) + hz / T(700));
}

}  // namespace

Status melBinEdges(const Node& node, int64_t length, const Tensor& sampleRate, const Tensor& lowerHz,
                   const Tensor& upperHz, std::vector<int64_t>* edges) {
  const double rate = scalarValue(sampleRate);
  if (!(rate > 0)) return Status::invalid(node.label() + ": sample_rate " + std::to_string(rate) + " must be positive");
  const size_t points = edges->size();
  double lowMel = 0, step = 0;
  if (lowerHz.dtype() == DataType::kF64) {
    lowMel = toMel(scalarValue(lowerHz));
    step = (toMel(scalarValue(upperHz)) - lowMel) / static_cast<double>(points);
  } else {
    const float low = toMel(static_cast<float>(scalarValue(lowerHz)));
    lowMel = low;
    step = (toMel(static_cast<float>(scalarValue(upperHz))) - low) / static_cast<float>(points);
  }
  for (size_t i = 0; i < points; ++i) {
    const double hz = 700 * (std::pow(10.0, (static_cast<double>(i) * step + lowMel) / 2595) - 1);
    (*edges)[i] = static_cast<int64_t>(std::floor(static_cast<double>(length + 1) * hz / rate));
  }
  return Status::ok();
}

}  // namespace tessera
