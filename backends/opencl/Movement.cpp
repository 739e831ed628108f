#include "backends/opencl/Movement.hpp"
#include "kernels/reshape.hpp"

namespace tessera {

std::string elementTypeName(DataType t) {
  switch (dataTypeSize(t)) {
    case 1: return "uchar";
    case 2: return "ushort";
    case 4: return "uint";
    case 8: return "ulong";
    default: return "";
  }
}

cl_int8 toInt8(const std::vector<int64_t>& v) {
  cl_int8 r{};
  for (size_t i = 0; i < v.size() && i < 8; ++i) r.s[i] = static_cast<cl_int>(v[i]);
  return r;
}

std::vector<int64_t> rowMajorStrides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * s[d + 1];
  return st;
}

}  // namespace tessera

namespace tessera {

Status OpenClStridedGather::onResize(const Tensors& inputs, const Tensors& outputs) {
  clearKernels();
  const Tensor* y = outputs[0];
  ClKernel* k = nullptr;
  TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::reshape::gather_strided,
                                    KernelOptions().define("T", elementTypeName(y->dtype())), &k));
  k->tensor(inputs[0]).tensor(y).arg(y->elementCount()).arg(static_cast<int64_t>(gather_.dims.size()));
  k->arg(toInt8(gather_.dims)).arg(toInt8(gather_.starts)).arg(toInt8(gather_.steps)).arg(toInt8(gather_.strides));
  return dispatch(k, {y->elementCount()});
}

Status OpenClByteCopy::onExecute(const Tensors& inputs, const Tensors& outputs) {
  const size_t bytes = static_cast<size_t>(outputs[0]->elementCount()) * dataTypeSize(outputs[0]->dtype());
  if (bytes == 0 || OpenClBackend::storage(inputs[0]) == OpenClBackend::storage(outputs[0])) return Status::ok();
  const cl_int err = clEnqueueCopyBuffer(cl()->queue(), OpenClBackend::storage(inputs[0])->mem,
                                         OpenClBackend::storage(outputs[0])->mem, 0, 0, bytes, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) return Status::internal("OpenCL copy: " + opencl::errorName(err));
  return Status::ok();
}

}  // namespace tessera
