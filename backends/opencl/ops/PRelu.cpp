// OpenCL PRelu (f32, plain buffers): the binary kernel with OP_PRELU; the slope broadcasts.
#include "backends/opencl/Movement.hpp"
#include "tessera/Registry.hpp"
#include "kernels/binary.hpp"

namespace tessera {
namespace {

class OpenClPRelu final : public OpenClExecution {
 public:
  using OpenClExecution::OpenClExecution;

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* y = outputs[0];
    const Shape& s = y->shape();
    const int rank = static_cast<int>(s.size());
    std::vector<int64_t> dims(s.begin(), s.end());
    auto strides = [&](const Shape& in) {
      std::vector<int64_t> st(rank, 0);
      int64_t stride = 1;
      const int off = rank - static_cast<int>(in.size());
      for (int d = rank - 1; d >= 0; --d) {
        const int64_t extent = d - off >= 0 ? in[d - off] : 1;
        st[d] = extent == 1 ? 0 : stride;
        stride *= extent;
      }
      return st;
    };
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::binary::binary_plain, KernelOptions().define("OP_PRELU"), &k));
    k->tensor(inputs[0]).tensor(inputs[1]).tensor(y).arg(y->elementCount()).arg(int64_t(rank)).arg(toInt8(dims));
    k->arg(toInt8(strides(inputs[0]->shape()))).arg(toInt8(strides(inputs[1]->shape())));
    return dispatch(k, {y->elementCount()});
  }
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  if (inputs.size() != 2 || !inputs[0] || !inputs[1]) return nullptr;
  if (inputs[0]->dtype() != DataType::kF32 || inputs[1]->dtype() != DataType::kF32) return nullptr;
  if (outputs[0]->rank() > 8 || inputs[1]->rank() > outputs[0]->rank()) return nullptr;
  return makeExecution<OpenClPRelu>(b, node);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, PRelu, create);

}  // namespace tessera
