// OpenCL Slice (any element type, rank <= 8, constant starts/ends/axes/steps) as a strided
// gather on plain buffers.
#include "backends/opencl/Movement.hpp"
#include "ops/Slice.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  const Tensor* x = inputs[0];
  if (!x || x->rank() > 8 || x->rank() == 0 || elementTypeName(x->dtype()).empty()) return nullptr;
  std::vector<const Tensor*> rest;
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i] && !inputs[i]->data()) return nullptr;  // values needed now
    rest.push_back(inputs[i]);
  }
  SliceParams p;
  SliceWindow w;
  if (!SliceParams::parse(node, &p).isOk() || !resolveSlice(node, p, x->shape(), rest, &w).isOk()) return nullptr;
  StridedGather g;
  g.dims = w.counts;
  g.starts = w.starts;
  g.steps = w.steps;
  g.strides = rowMajorStrides(x->shape());
  if (g.dims != outputs[0]->shape()) return nullptr;
  return makeExecution<OpenClStridedGather>(b, node, std::move(g));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Slice, create);

}  // namespace tessera
