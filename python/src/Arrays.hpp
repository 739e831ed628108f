// numpy arrays <-> Tessera host tensors.
#pragma once
#include <string>

#include <pybind11/numpy.h>

#include "tessera/Tensor.hpp"

namespace tessera {
namespace python {

// The Tessera dtype of a numpy dtype (float32, float16, int32, int64, uint8, bool), or
// kUnknown for one Tessera does not take.
DataType dataTypeOf(const pybind11::dtype& dt);
pybind11::dtype numpyDtypeOf(DataType t);  // throws for a dtype numpy cannot hold
const char* numpyName(DataType t);          // "float32", ...

// A host NCHW tensor wrapping a C-contiguous copy of `array` (non-contiguous arrays are made
// contiguous); `keep` holds the memory it wraps. Throws tessera.InvalidArgument naming the
// input for an unsupported dtype.
Tensor tensorFromArray(const std::string& name, const pybind11::array& array, pybind11::array* keep);
// A numpy array owning a copy of a host tensor.
pybind11::array arrayFromTensor(const Tensor& t);

}  // namespace python
}  // namespace tessera
