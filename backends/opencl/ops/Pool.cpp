// OpenCL MaxPool / AveragePool / GlobalMaxPool / GlobalAveragePool (1-D, 2-D and 3-D, f32) on
// NC4HW4 tensors. MaxPool's optional Indices output falls back to the CPU. Kernels: pool.cl
// (an output pixel per work-item), global_pool.cl (an output per work-group, for the global
// pools, whose window is the whole plane; on a GPU where those groups are few, parts of the
// plane per work-group and a merge).
#include "backends/opencl/OpenClExecution.hpp"
#include "core/src/SplitReduction.hpp"
#include "ops/Pool.hpp"
#include "tessera/Registry.hpp"
#include "kernels/global_pool.hpp"
#include "kernels/pool.hpp"

namespace tessera {
namespace {

constexpr size_t kGroupSize = 64;  // global_pool.cl's items per output (a power of 2)

bool isGlobal(const PoolParams& p) { return p.kind == PoolKind::kGlobalMax || p.kind == PoolKind::kGlobalAverage; }

// A (D, H, W) triple of a 3-D window as a kernel's int4.
cl_int4 dhw(const std::vector<int64_t>& v) {
  return cl_int4{{static_cast<cl_int>(v[0]), static_cast<cl_int>(v[1]), static_cast<cl_int>(v[2]), 0}};
}

class OpenClPool final : public OpenClExecution {
 public:
  OpenClPool(Backend* b, const PoolParams& p, const WindowGeometry& g) : OpenClExecution(b), params_(p), geometry_(g) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    allLayouts(Layout::kNC4HW4, available, in, out);
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* x = inputs[0];
    const Tensor* y = outputs[0];
    const Nc4Geometry xg = nc4Geometry(x->shape());
    KernelOptions o;
    o.define(params_.isMax() ? "POOL_MAX" : "POOL_AVG").storage("src", x).storage("dst", y);
    if (params_.countIncludePad) o.define("COUNT_INCLUDE_PAD");
    ClKernel* k = nullptr;
    if (isGlobal(params_)) {
      o.define("WG_SIZE", static_cast<long long>(kGroupSize));
      const int64_t groups = xg.n * xg.c4();
      const int64_t parts = globalPoolParts(groups, xg.h * xg.w, static_cast<int64_t>(kGroupSize), cl()->deviceKind(),
                                            "TESSERA_OPENCL_POOL_PARTS");
      if (parts == 1) {
        TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::global_pool::global_pool, o, &k));
        k->tensor(x).tensor(y).arg(xg.c4()).arg(xg.h).arg(xg.w);
        return dispatchGroups(k, groups, kGroupSize);
      }
      TESSERA_RETURN_IF_ERROR(cl()->createBuffer(groups * parts * 4 * sizeof(float), nullptr, &partials_,
                                                 "global pool parts"));
      TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::global_pool::global_pool_partial, o, &k));
      k->tensor(x).mem(partials_.get()).arg(xg.c4()).arg(xg.h).arg(xg.w).arg(parts);
      TESSERA_RETURN_IF_ERROR(dispatchGroups(k, groups * parts, kGroupSize));
      TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::global_pool::global_pool_merge, o, &k));
      k->mem(partials_.get()).tensor(y).arg(xg.c4()).arg(groups).arg(parts).arg(xg.h * xg.w);
      return dispatch(k, {groups});
    }
    const WindowGeometry g = geometry_.padTo3D();
    if (x->rank() == 5) {  // pixel grid (C4 * H * W) x (N * D)
      TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::pool::pool3d, o, &k));
      k->tensor(x).tensor(y).arg(xg.c4()).arg(dhw(g.input)).arg(dhw(g.output)).arg(dhw(g.kernel)).arg(dhw(g.stride));
      k->arg(dhw(g.padBegin)).arg(dhw(g.dilation)).arg(dhw(g.padEnd)).arg(xg.n * g.output[0]);
      return dispatch(k, {xg.c4() * g.output[1] * g.output[2], xg.n * g.output[0]});
    }
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::pool::pool, o, &k));
    k->tensor(x).tensor(y).arg(xg.c4()).arg(g.input[1]).arg(g.input[2]).arg(g.output[1]).arg(g.output[2]);
    k->arg(g.kernel[1]).arg(g.kernel[2]).arg(g.stride[1]).arg(g.stride[2]).arg(g.padBegin[1]).arg(g.padBegin[2]);
    k->arg(g.dilation[1]).arg(g.dilation[2]).arg(g.padEnd[1]).arg(g.padEnd[2]).arg(xg.n * g.output[1]);
    return dispatch(k, {xg.c4() * g.output[2], xg.n * g.output[1]});
  }

 private:
  PoolParams params_;
  WindowGeometry geometry_;
  ClBuffer partials_;  // the parts of a split global pool
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  if (outputs.size() != 1 || inputs.empty() || !inputs[0]) return nullptr;  // no Indices here
  const Tensor* x = inputs[0];
  if (x->dtype() != DataType::kF32 || (x->rank() < 3 || x->rank() > 5)) return nullptr;
  PoolParams p;
  if (!PoolParams::parse(node, &p).isOk()) return nullptr;
  WindowGeometry g;
  if (!resolvePool(p, x->shape(), &g).isOk()) return nullptr;
  if (isGlobal(p) && static_cast<OpenClBackend*>(b)->device().maxWorkGroupSize < kGroupSize) return nullptr;
  return makeExecution<OpenClPool>(b, node, p, g);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, MaxPool, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, AveragePool, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, GlobalMaxPool, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, GlobalAveragePool, create);

}  // namespace tessera
