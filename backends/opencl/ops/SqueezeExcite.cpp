// OpenCL SqueezeExcite (ops/SqueezeExcite.hpp): one kernel for a squeeze-and-excite block's
// two 1x1 convs and its Mul, on NC4HW4. Constant weights only, packed on the host into one
// fp32 buffer. Without a `pooled` input the block's GlobalAveragePool is done here too:
// inside the kernel on a small plane (-DSELF, SqueezeExciteParams::meansInKernel), else
// global_pool_partial first, its parts added by the kernel (-DPARTS). Kernels:
// shaders/opencl/squeeze_excite.cl, global_pool.cl.
#include <algorithm>
#include <vector>

#include "backends/opencl/OpenClExecution.hpp"
#include "core/src/SplitReduction.hpp"
#include "ops/SqueezeExcite.hpp"
#include "tessera/Registry.hpp"
#include "kernels/global_pool.hpp"
#include "kernels/squeeze_excite.hpp"

namespace tessera {
namespace {

using P = SqueezeExciteParams;
constexpr size_t kGroupSize = 64;      // items of a work-group (a power of 2)

class OpenClSqueezeExcite final : public OpenClExecution {
 public:
  OpenClSqueezeExcite(Backend* b, const SqueezeExciteParams& p, std::vector<float> table)
      : OpenClExecution(b), params_(p), table_(std::move(table)) {}

  bool readsConstantOnHost(size_t input) const override { return input >= P::kW1; }

  void selectLayouts(const std::vector<Layout>& available, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    in->assign(available.size(), Layout::kNCHW);
    (*in)[P::kX] = Layout::kNC4HW4;
    if (P::input(inputs, P::kPooled)) (*in)[P::kPooled] = Layout::kNC4HW4;
    (*out)[0] = Layout::kNC4HW4;
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* x = inputs[P::kX];
    const Tensor* pooled = P::input(inputs, P::kPooled);
    const Tensor* y = outputs[0];
    if (y->elementCount() == 0) return Status::ok();
    const Shape& s = x->shape();
    const int64_t C = s[1], C1 = inputs[P::kW1]->dim(0), C4 = (C + 3) / 4;
    const int64_t tiles = std::max<int64_t>(1, (s[2] * s[3] + P::kTilePixels - 1) / P::kTilePixels);
    const int64_t blocks = P::blocksPerGroup(C4, cl()->deviceKind() == DeviceKind::kCPU);
    TESSERA_RETURN_IF_ERROR(cl()->createBuffer(table_.size() * sizeof(float), table_.data(), &tableBuffer_, "SqueezeExcite weights"));
    KernelOptions o;
    o.storage("x", x).storage("y", y);
    o.define("WG_SIZE", static_cast<long long>(kGroupSize)).define("MAX_CHANNELS", static_cast<long long>(P::kMaxChannels));
    ClKernel* k = nullptr;
    int64_t parts = 0;  // of the pool's sums, without pooled on larger planes
    if (pooled) {
      o.storage("pooled", pooled);
    } else if (P::meansInKernel(C, s[2] * s[3])) {
      o.define("SELF").storage("pooled", x);
    } else {
      KernelOptions pool;
      pool.define("POOL_AVG").define("WG_SIZE", static_cast<long long>(kGroupSize)).storage("src", x);
      const int64_t poolGroups = s[0] * C4;
      parts = globalPoolParts(poolGroups, s[2] * s[3], static_cast<int64_t>(kGroupSize), cl()->deviceKind(),
                              "TESSERA_OPENCL_POOL_PARTS");
      TESSERA_RETURN_IF_ERROR(cl()->createBuffer(poolGroups * parts * 4 * sizeof(float), nullptr, &sums_,
                                                 "SqueezeExcite pool parts"));
      TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::global_pool::global_pool_partial, pool, &k));
      k->tensor(x).mem(sums_.get()).arg(C4).arg(s[2]).arg(s[3]).arg(parts);
      TESSERA_RETURN_IF_ERROR(dispatchGroups(k, poolGroups * parts, kGroupSize));
      o.define("PARTS");
    }
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::squeeze_excite::squeeze_excite, o, &k));
    k->tensor(x);
    if (parts) k->mem(sums_.get());
    else k->tensor(pooled ? pooled : x);
    k->mem(tableBuffer_.get()).tensor(y).arg(C).arg(s[2]).arg(s[3]).arg(C1).arg(tiles).arg(blocks);
    k->arg(static_cast<cl_int>(params_.hidden.kind)).arg(params_.hidden.alpha).arg(params_.hidden.beta);
    k->arg(static_cast<cl_int>(params_.gate.kind)).arg(params_.gate.alpha).arg(params_.gate.beta);
    k->arg(params_.gate.scale).arg(params_.gate.shift).arg(parts);
    return dispatchGroups(k, s[0] * ((C4 + blocks - 1) / blocks) * tiles, kGroupSize);
  }

 private:
  SqueezeExciteParams params_;
  std::vector<float> table_;  // the kernel's `w`: W1 transposed, B1, W2, B2
  ClBuffer tableBuffer_;
  ClBuffer sums_;  // the pool's parts, without pooled on larger planes
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  if (outputs.size() != 1 || !P::gpuKernelTakes(inputs)) return nullptr;
  if (static_cast<OpenClBackend*>(b)->device().maxWorkGroupSize < kGroupSize) return nullptr;
  SqueezeExciteParams params;
  if (!SqueezeExciteParams::parse(node, &params).isOk()) return nullptr;
  return makeExecution<OpenClSqueezeExcite>(
      b, node, params, P::gpuTable(inputs[P::kW1], P::input(inputs, P::kB1), inputs[P::kW2], P::input(inputs, P::kB2)));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, SqueezeExcite, create);

}  // namespace tessera
