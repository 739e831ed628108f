// MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins] in output_datatype
// (ops/MelWeightMatrix.hpp); both counts must be known when the graph is planned.
#include "ops/MelWeightMatrix.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status melWeightMatrixShape(ShapeContext& ctx) {
  MelWeightMatrixParams p;
  TESSERA_RETURN_IF_ERROR(MelWeightMatrixParams::parse(ctx.node, &p));
  for (size_t i = 2; i < 5; ++i)
    if (!ctx.input(i) || ctx.input(i)->elementCount() != 1)
      return ctx.error("input " + std::to_string(i) + " (sample_rate, lower_edge_hertz, upper_edge_hertz) "
                       "must be a scalar");
  if (!isInteger(ctx.input(2)->dtype())) return ctx.error("sample_rate " + ctx.input(2)->describe() + " must be an integer");
  if (!isFloat(ctx.input(3)->dtype()) || ctx.input(4)->dtype() != ctx.input(3)->dtype())
    return ctx.error("lower_edge_hertz and upper_edge_hertz must be floats of one type");
  int64_t mels = 0, length = 0;
  TESSERA_RETURN_IF_ERROR(resolveMelWeightMatrix(ctx.node, ctx.input(0), ctx.input(1), &mels, &length));
  ctx.output(0) = Tensor(Shape{length / 2 + 1, mels}, p.output);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(MelWeightMatrix, melWeightMatrixShape);

}  // namespace tessera
