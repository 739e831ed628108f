#include "python/src/Arrays.hpp"

#include <cstring>

#include "python/src/Errors.hpp"

namespace py = pybind11;

namespace tessera {
namespace python {

DataType dataTypeOf(const py::dtype& dt) {
  if (dt.is(py::dtype::of<float>())) return DataType::kF32;
  if (dt.is(py::dtype("float16"))) return DataType::kF16;
  if (dt.is(py::dtype::of<int32_t>())) return DataType::kI32;
  if (dt.is(py::dtype::of<int64_t>())) return DataType::kI64;
  if (dt.is(py::dtype::of<uint8_t>())) return DataType::kU8;
  if (dt.is(py::dtype::of<bool>())) return DataType::kBool;
  if (dt.is(py::dtype::of<double>())) return DataType::kF64;
  if (dt.is(py::dtype::of<int8_t>())) return DataType::kI8;
  return DataType::kUnknown;
}

const char* numpyName(DataType t) {
  switch (t) {
    case DataType::kF32: return "float32";
    case DataType::kF16: return "float16";
    case DataType::kF64: return "float64";
    case DataType::kI8: return "int8";
    case DataType::kI16: return "int16";
    case DataType::kI32: return "int32";
    case DataType::kI64: return "int64";
    case DataType::kU8: return "uint8";
    case DataType::kU16: return "uint16";
    case DataType::kU32: return "uint32";
    case DataType::kU64: return "uint64";
    case DataType::kBool: return "bool";
    default: return nullptr;
  }
}

py::dtype numpyDtypeOf(DataType t) {
  const char* name = numpyName(t);
  if (!name) throw invalidArgument(std::string("a ") + dataTypeName(t) + " tensor has no numpy dtype");
  return py::dtype(name);
}

Tensor tensorFromArray(const std::string& name, const py::array& array, py::array* keep) {
  const DataType t = dataTypeOf(array.dtype());
  if (t == DataType::kUnknown)
    throw invalidArgument("input '" + name + "': numpy dtype " + py::str(array.dtype()).cast<std::string>() +
                          " is not supported (float32, float16, float64, int8, int32, int64, uint8, bool)");
  // A C-contiguous array in native byte order, copied only when the given one is not.
  *keep = py::array::ensure(array, py::array::c_style | py::array::forcecast);
  if (!keep->ptr()) throw invalidArgument("input '" + name + "': cannot be made a contiguous array");
  Shape shape(keep->shape(), keep->shape() + keep->ndim());
  Tensor tensor = Tensor::hostWrap(keep->mutable_data(), shape, t);
  tensor.setName(name);
  return tensor;
}

py::array arrayFromTensor(const Tensor& t) {
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  py::array out(numpyDtypeOf(t.dtype()), shape);
  if (t.byteSize()) std::memcpy(out.mutable_data(), t.data(), t.byteSize());
  return out;
}

}  // namespace python
}  // namespace tessera
