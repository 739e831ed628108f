// NumPy .npy files (format versions 1-3, little-endian, C order) <-> host tensors.
#pragma once
#include <string>

#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {
namespace cli {

// Validates the magic, the header (descr, fortran_order, shape) and that the file holds
// exactly the bytes the header promises; any mismatch is an error naming the file.
Status readNpy(const std::string& path, Tensor* out);
// The same from the file's bytes (`path` names it in errors).
Status parseNpy(const std::string& bytes, const std::string& path, Tensor* out);

// Writes a host NCHW tensor; bf16 is widened to f32 (NumPy has no bfloat16).
Status writeNpy(const std::string& path, const Tensor& t);

}  // namespace cli
}  // namespace tessera
