// OpenCL Transpose (any element type, rank <= 8) as a strided gather on plain buffers.
#include "backends/opencl/Movement.hpp"
#include "ops/Transpose.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  const Tensor* x = inputs[0];
  if (!x || x->rank() > 8 || elementTypeName(x->dtype()).empty()) return nullptr;
  TransposeParams p;
  std::vector<int64_t> perm;
  if (!TransposeParams::parse(node, &p).isOk() || !p.resolve(node, x->rank(), &perm).isOk()) return nullptr;
  const std::vector<int64_t> in = rowMajorStrides(x->shape());
  StridedGather g;
  for (size_t d = 0; d < perm.size(); ++d) {
    g.dims.push_back(x->shape()[perm[d]]);
    g.starts.push_back(0);
    g.steps.push_back(1);
    g.strides.push_back(in[perm[d]]);
  }
  return makeExecution<OpenClStridedGather>(b, node, std::move(g));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Transpose, create);

}  // namespace tessera
