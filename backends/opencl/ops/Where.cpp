// OpenCL Where (bool condition, any 1/2/4/8-byte element type, rank <= 8) with numpy
// broadcasting of all three inputs, on plain buffers.
#include "backends/opencl/Movement.hpp"
#include "tessera/Registry.hpp"
#include "kernels/reshape.hpp"

namespace tessera {
namespace {

// Element strides of `in` broadcast to `out` (0 along broadcast dimensions).
std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out) {
  const int rank = static_cast<int>(out.size());
  std::vector<int64_t> st(rank, 0);
  int64_t stride = 1;
  const int off = rank - static_cast<int>(in.size());
  for (int d = rank - 1; d >= 0; --d) {
    const int64_t extent = d - off >= 0 ? in[d - off] : 1;
    st[d] = extent == 1 ? 0 : stride;
    stride *= extent;
  }
  return st;
}

class OpenClWhere final : public OpenClExecution {
 public:
  using OpenClExecution::OpenClExecution;

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* y = outputs[0];
    const Shape& s = y->shape();
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::reshape::where_select,
                                      KernelOptions().define("T", elementTypeName(y->dtype())), &k));
    k->tensor(inputs[0]).tensor(inputs[1]).tensor(inputs[2]).tensor(y).arg(y->elementCount());
    k->arg(static_cast<int64_t>(s.size())).arg(toInt8(std::vector<int64_t>(s.begin(), s.end())));
    for (int i = 0; i < 3; ++i) k->arg(toInt8(broadcastStrides(inputs[i]->shape(), s)));
    return dispatch(k, {y->elementCount()});
  }
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  if (inputs.size() != 3) return nullptr;
  for (const Tensor* t : inputs)
    if (!t || t->rank() > 8) return nullptr;
  if (inputs[0]->dtype() != DataType::kBool || outputs[0]->rank() > 8) return nullptr;
  if (inputs[1]->dtype() != inputs[2]->dtype() || elementTypeName(inputs[1]->dtype()).empty()) return nullptr;
  return makeExecution<OpenClWhere>(b, node);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Where, create);

}  // namespace tessera
