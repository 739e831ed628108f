// ReverseSequence: the input's shape and dtype; sequence_lens holds one length per batch.
#include "ops/ReverseSequence.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status reverseSequenceShape(ShapeContext& ctx) {
  ReverseSequenceParams p;
  TESSERA_RETURN_IF_ERROR(ReverseSequenceParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  const Tensor* lens = ctx.input(1);
  if (!x || !lens) return ctx.error("needs inputs 'input' and 'sequence_lens'");
  if (x->rank() < 2) return ctx.error("input " + x->describe() + " needs rank 2 or more");
  if (lens->dtype() != DataType::kI64 && lens->dtype() != DataType::kI32)
    return ctx.error("sequence_lens " + lens->describe() + " must be int64");
  if (lens->rank() != 1 || lens->dim(0) != x->dim(static_cast<int>(p.batchAxis)))
    return ctx.error("sequence_lens " + lens->describe() + " must hold one length per batch of input " +
                     x->describe() + " (batch_axis " + std::to_string(p.batchAxis) + ")");
  ctx.output(0) = Tensor(x->shape(), x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(ReverseSequence, reverseSequenceShape);

}  // namespace tessera
