// OpenCL Expand (any element type, rank <= 8): a strided gather with stride 0 along the
// broadcast dimensions. The output shape comes from shape inference.
#include "backends/opencl/Movement.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  const Tensor* x = inputs.empty() ? nullptr : inputs[0];
  const Tensor* y = outputs[0];
  if (!x || y->rank() > 8 || x->rank() > y->rank() || elementTypeName(x->dtype()).empty()) return nullptr;
  const std::vector<int64_t> in = rowMajorStrides(x->shape());
  const int off = y->rank() - x->rank();
  StridedGather g;
  for (int d = 0; d < y->rank(); ++d) {
    const int xd = d - off;
    const int64_t extent = xd >= 0 ? x->dim(xd) : 1;
    if (extent != 1 && extent != y->dim(d)) return nullptr;
    g.dims.push_back(y->dim(d));
    g.starts.push_back(0);
    g.steps.push_back(1);
    g.strides.push_back(extent == 1 ? 0 : in[xd]);
  }
  if (g.dims.empty()) {  // a scalar: one element
    g.dims = {1};
    g.starts = {0};
    g.steps = {1};
    g.strides = {0};
  }
  return makeExecution<OpenClStridedGather>(b, node, std::move(g));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Expand, create);

}  // namespace tessera
