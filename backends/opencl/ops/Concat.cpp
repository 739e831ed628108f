// OpenCL Concat: on NC4HW4 (f32, rank 3-4) when an input already is, each input's pixels
// copied into place (along channels only when the channel offsets are whole blocks of 4; two
// to four inputs along channels in one kernel, concat_channels);
// else on plain buffers (any element type), each input copied as rows into its place.
#include <cstdint>
#include <string>
#include <vector>

#include "backends/opencl/Movement.hpp"
#include "ops/Concat.hpp"
#include "tessera/Registry.hpp"
#include "kernels/concat.hpp"
#include "kernels/concat_channels.hpp"
#include "kernels/reshape.hpp"

namespace tessera {
namespace {

class OpenClConcat final : public OpenClExecution {
 public:
  OpenClConcat(Backend* b, int64_t axis, bool nc4) : OpenClExecution(b), axis_(axis), nc4_(nc4) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    bool anyNc4 = false;
    for (Layout l : available) anyNc4 = anyNc4 || l == Layout::kNC4HW4;
    allLayouts(nc4_ && anyNc4 ? Layout::kNC4HW4 : Layout::kNCHW, available, in, out);
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* y = outputs[0];
    if (isNc4(y)) return resizeNc4(inputs, y);
    const Shape& s = y->shape();
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis_; ++d) outer *= s[d];
    for (size_t d = axis_ + 1; d < s.size(); ++d) inner *= s[d];
    const int64_t dstRow = s[axis_] * inner;
    int64_t offset = 0;
    for (const Tensor* x : inputs) {
      const int64_t row = x->shape()[axis_] * inner;
      if (row > 0 && outer > 0) {
        ClKernel* k = nullptr;
        TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::reshape::copy_rows,
                                          KernelOptions().define("T", elementTypeName(y->dtype())), &k));
        k->tensor(x).tensor(y).arg(row).arg(outer).arg(row).arg(int64_t(0)).arg(dstRow).arg(offset);
        TESSERA_RETURN_IF_ERROR(dispatch(k, {row, outer}));
      }
      offset += row;
    }
    return Status::ok();
  }

 private:
  // Two to four inputs along C: one kernel over the output's pixels.
  Status concatChannels(const Tensors& inputs, const Tensor* y) {
    const Nc4Geometry yg = nc4Geometry(y->shape());
    KernelOptions options;
    options.storage("dst", y);
    for (size_t k = 0; k < kConcatInputsInOneKernel; ++k)
      options.storage("src" + std::to_string(k), inputs[k < inputs.size() ? k : 0]);
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::concat_channels::concat_channels, options, &k));
    for (size_t i = 0; i < kConcatInputsInOneKernel; ++i)  // placeholders past the count are never read
      k->tensor(inputs[i < inputs.size() ? i : 0]);
    k->tensor(y).arg(yg.w).arg(yg.c4()).arg(yg.height());
    int64_t first = 0;
    std::vector<int64_t> firsts, blocks;
    for (size_t i = 0; i < kConcatInputsInOneKernel; ++i) {
      firsts.push_back(i < inputs.size() ? first / 4 : INT32_MAX);
      blocks.push_back(i < inputs.size() ? nc4Geometry(inputs[i]->shape()).c4() : 1);
      if (i < inputs.size()) first += inputs[i]->dim(1);
    }
    k->arg(firsts[1]).arg(firsts[2]).arg(firsts[3]);
    for (int64_t b : blocks) k->arg(b);
    return dispatchNc4(k, yg);
  }

  Status resizeNc4(const Tensors& inputs, const Tensor* y) {
    if (concatInOneKernel(inputs, axis_)) return concatChannels(inputs, y);
    const Nc4Geometry yg = nc4Geometry(y->shape());
    // Which geometry field the axis is: rank 4 N C H W; rank 3 N C W.
    const int field = y->rank() == 3 && axis_ == 2 ? 3 : static_cast<int>(axis_);
    int64_t offset = 0;
    for (const Tensor* x : inputs) {
      const Nc4Geometry xg = nc4Geometry(x->shape());
      const int64_t extent = field == 0 ? xg.n : field == 1 ? xg.c : field == 2 ? xg.h : xg.w;
      if (x->elementCount() > 0) {
        ClKernel* k = nullptr;
        TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::concat::copy_nc4,
                                          KernelOptions().storage("src", x).storage("dst", y), &k));
        k->tensor(x).tensor(y).arg(xg.h).arg(xg.w).arg(yg.c4()).arg(yg.h).arg(yg.w);
        k->arg(field == 1 ? offset / 4 : 0).arg(field == 0 ? offset : 0).arg(field == 2 ? offset : 0);
        k->arg(field == 3 ? offset : 0).arg(xg.width()).arg(xg.height());
        TESSERA_RETURN_IF_ERROR(dispatchNc4(k, xg));
      }
      offset += extent;
    }
    return Status::ok();
  }

  int64_t axis_;
  bool nc4_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  ConcatParams p;
  if (!ConcatParams::parse(node, &p).isOk()) return nullptr;
  const Tensor* y = outputs[0];
  int64_t axis = 0;
  if (!normalizeAxis(p.axis, y->rank(), &axis) || elementTypeName(y->dtype()).empty()) return nullptr;
  for (const Tensor* x : inputs)
    if (!x || x->dtype() != y->dtype()) return nullptr;
  bool nc4 = y->dtype() == DataType::kF32 && (y->rank() == 3 || y->rank() == 4);
  if (nc4 && axis == 1)  // channel offsets must be whole blocks: all but the last input C % 4 == 0
    for (size_t i = 0; i + 1 < inputs.size(); ++i) nc4 = nc4 && inputs[i]->dim(1) % 4 == 0;
  return makeExecution<OpenClConcat>(b, node, axis, nc4);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Concat, create);

}  // namespace tessera
