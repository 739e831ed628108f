// OpenCL DepthToSpace (DCR and CRD) and SpaceToDepth (any element type, rank 4) as strided
// gathers on plain buffers: the output is walked as a 6-D view whose strides into the
// input encode the block permutation.
#include "backends/opencl/Movement.hpp"
#include "ops/DepthToSpace.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  const Tensor* x = inputs[0];
  if (!x || x->rank() != 4 || elementTypeName(x->dtype()).empty()) return nullptr;
  DepthToSpaceParams p;
  if (!DepthToSpaceParams::parse(node, &p).isOk()) return nullptr;
  const int64_t bs = p.blockSize, N = x->dim(0), C = x->dim(1), H = x->dim(2), W = x->dim(3);
  StridedGather g;
  if (node.opType == "DepthToSpace") {
    if (C % (bs * bs) != 0) return nullptr;
    const int64_t c = C / (bs * bs), plane = H * W;
    // output view [N, c, H, i, W, j]
    g.dims = {N, c, H, bs, W, bs};
    if (p.crd) g.strides = {C * plane, bs * bs * plane, W, bs * plane, 1, plane};
    else g.strides = {C * plane, plane, W, bs * c * plane, 1, c * plane};
  } else {
    if (p.crd || H % bs != 0 || W % bs != 0) return nullptr;
    // output view [N, i, j, C, H/bs, W/bs]
    g.dims = {N, bs, bs, C, H / bs, W / bs};
    g.strides = {C * H * W, W, 1, H * W, bs * W, bs};
  }
  g.starts.assign(6, 0);
  g.steps.assign(6, 1);
  if (elementCount(g.dims) != outputs[0]->elementCount()) return nullptr;
  return makeExecution<OpenClStridedGather>(b, node, std::move(g));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, DepthToSpace, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, SpaceToDepth, create);

}  // namespace tessera
