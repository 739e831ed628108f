#include "backends/opencl/ConvWeights.hpp"
#include "kernels/conv.hpp"

namespace tessera {

Status OpenClConvBase::packOnDevice(const Tensor* w, const Tensor* b, int64_t M, int64_t C, int64_t group,
                                    int64_t taps, int64_t inC4, int64_t outC4, bool depthwise, bool transposed,
                                    ClBuffer* weights, ClBuffer* bias) {
  const int64_t count = depthwise ? outC4 * taps * 4 : outC4 * inC4 * taps * 16;
  TESSERA_RETURN_IF_ERROR(cl()->createBuffer(count * 4, nullptr, weights, "packed weights"));
  TESSERA_RETURN_IF_ERROR(cl()->createBuffer(outC4 * 16, nullptr, bias, "packed bias"));
  ClKernel* k = nullptr;
  if (depthwise) {
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::conv::pack_depthwise, KernelOptions(), &k));
    k->tensor(w).mem(weights->get()).arg(C).arg(taps).arg(outC4);
  } else {
    KernelOptions o;
    if (transposed) o.define("TRANSPOSED");
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::conv::pack_dense, o, &k));
    k->tensor(w).mem(weights->get()).arg(M).arg(C).arg(group).arg(taps).arg(inC4).arg(outC4);
  }
  TESSERA_RETURN_IF_ERROR(dispatch(k, {count}, false));
  TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::conv::pack_bias, KernelOptions(), &k));
  if (b) k->tensor(b);
  else k->mem(bias->get());
  k->mem(bias->get()).arg(M).arg(outC4 * 4).arg(b ? 1 : 0);
  return dispatch(k, {outC4 * 4}, false);
}

}  // namespace tessera
