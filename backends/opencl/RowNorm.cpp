#include "backends/opencl/RowNorm.hpp"

#include "kernels/row_norm.hpp"

namespace tessera {
namespace {

constexpr size_t kGroupSize = 64;    // the group's items (a power of 2)

}  // namespace

Status OpenClRowNorm::encodeRowNorm(const RowNormLayout& l, float epsilon, const Tensor* x, const Tensor* scale,
                                    const Tensor* bias, const Tensor* y, const Tensor* mean, const Tensor* invStdDev) {
  clearKernels();
  const bool group = groupLines(l.length, l.rows, kGroupSize);
  KernelOptions o;
  if (group) o.define("GROUP").define("WG_SIZE", static_cast<long long>(kGroupSize));
  ClKernel* k = nullptr;
  TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::row_norm::row_norm, o, &k));
  const cl_int4 steps{{static_cast<cl_int>(l.scaleRow), static_cast<cl_int>(l.scaleElement),
                       static_cast<cl_int>(l.biasRow), static_cast<cl_int>(l.biasElement)}};
  k->tensor(x).tensor(scale).tensor(bias ? bias : scale).tensor(y).tensor(mean ? mean : y).tensor(invStdDev ? invStdDev : y);
  k->arg(l.rows).arg(l.length).arg(l.channels).arg(steps).arg(bias ? 1 : 0);
  k->arg((mean ? 1 : 0) | (invStdDev ? 2 : 0)).arg(epsilon);
  return group ? dispatchGroups(k, l.rows, kGroupSize) : dispatch(k, {l.rows});
}

}  // namespace tessera
