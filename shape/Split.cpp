// Split: each output is the input with the axis extent replaced by its part size.
#include "ops/Split.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status splitShape(ShapeContext& ctx) {
  SplitParams p;
  TESSERA_RETURN_IF_ERROR(SplitParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  int64_t axis = 0;
  std::vector<int64_t> sizes;
  TESSERA_RETURN_IF_ERROR(resolveSplitSizes(ctx.node, p, x->shape(), ctx.input(1),
                                            ctx.outputs.size(), &axis, &sizes));
  if (sizes.size() != ctx.outputs.size())
    return ctx.error("'num_outputs' is " + std::to_string(sizes.size()) + " but the node has " +
                     std::to_string(ctx.outputs.size()) + " outputs");
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape s = x->shape();
    s[axis] = sizes[i];
    ctx.output(i) = Tensor(s, x->dtype());
  }
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Split, splitShape);

}  // namespace tessera
