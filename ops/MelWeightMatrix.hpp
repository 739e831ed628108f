// MelWeightMatrix (opset 17), following ONNX's reference step by step.
//
// Inputs (scalars): num_mel_bins M, dft_length L, sample_rate, lower_edge_hertz,
// upper_edge_hertz. The output is [L/2 + 1, M] in output_datatype (default float). M + 2
// points evenly spaced in mel (mel = 2595 * log10(1 + hz/700)) from the lower edge, with a
// step of (high_mel - low_mel) / (M + 2) (sic: M + 2, as the reference), are mapped back to
// hertz and to integer spectrogram bins floor((L + 1) * hz / sample_rate). Column m is the
// triangle over bins [b[m], b[m+2]): rising (j - b[m]) / (b[m+1] - b[m]) up to b[m+1]
// inclusive, falling (b[m+2] - j) / (b[m+2] - b[m+1]) from b[m+1]; a zero-width rise puts
// 1 at b[m+1]. The edges' mels are computed in the edges' float type (as the reference's
// numpy does), the rest in double. Bins outside the output's rows are left out.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ops/Cast.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

struct MelWeightMatrixParams {
  DataType output = DataType::kF32;

  static Status parse(const Node& node, MelWeightMatrixParams* out) {
    const int64_t onnxType = node.attrs.getInt("output_datatype", 1);
    out->output = dataTypeFromOnnx(onnxType);
    if (out->output == DataType::kUnknown || out->output == DataType::kString || out->output == DataType::kBool)
      return Status::invalid(node.label() + ": output_datatype " + std::to_string(onnxType) + " is not a numeric type");
    return Status::ok();
  }
};

// Reads num_mel_bins and dft_length (they set the output's shape, so must be constant when
// planned) and checks them.
Status resolveMelWeightMatrix(const Node& node, const Tensor* numMelBins, const Tensor* dftLength, int64_t* mels,
                              int64_t* length);

// The M + 2 integer bin edges from the five inputs' values; edges has M + 2 entries.
// Fails on a sample_rate that is not positive.
Status melBinEdges(const Node& node, int64_t length, const Tensor& sampleRate, const Tensor& lowerHz,
                   const Tensor& upperHz, std::vector<int64_t>* edges);

}  // namespace tessera
