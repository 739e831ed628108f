// OpenCL Reduce* (f32, plain buffers): any set of axes, keepdims or not; axes from the
// attribute or a constant input. Kernel: shaders/opencl/reduce.cl, one work-item per output
// when few elements meet in it, one work-group per output when many do (a whole image or
// axis, spread over the group instead of one work-item's loop).
#include "backends/opencl/Movement.hpp"
#include "ops/Reduce.hpp"
#include "tessera/Registry.hpp"
#include "kernels/reduce.hpp"

namespace tessera {
namespace {

constexpr size_t kGroupSize = 64;    // the group's items (a power of 2)

const char* kindDefine(ReduceKind k) {
  switch (k) {
    case ReduceKind::kSum: return "REDUCE_SUM";
    case ReduceKind::kMean: return "REDUCE_MEAN";
    case ReduceKind::kMax: return "REDUCE_MAX";
    case ReduceKind::kMin: return "REDUCE_MIN";
    case ReduceKind::kProd: return "REDUCE_PROD";
    case ReduceKind::kL1: return "REDUCE_L1";
    case ReduceKind::kL2: return "REDUCE_L2";
    case ReduceKind::kSumSquare: return "REDUCE_SUMSQUARE";
    case ReduceKind::kLogSumExp: return "REDUCE_LOGSUMEXP";
    case ReduceKind::kLogSum: return "REDUCE_LOGSUM";
  }
  return "REDUCE_SUM";
}

class OpenClReduce final : public OpenClExecution {
 public:
  // Inputs after the data (sizes, starts, axes, a shape...) are read on the host while
  // planning: constant ones are not uploaded.
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }
  OpenClReduce(Backend* b, ReduceKind k, std::vector<bool> reduced) : OpenClExecution(b), kind_(k), reduced_(std::move(reduced)) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* x = inputs[0];
    const Shape& s = x->shape();
    const std::vector<int64_t> st = rowMajorStrides(s);
    std::vector<int64_t> kd, ks, rd, rs;
    int64_t redCount = 1;
    for (size_t d = 0; d < s.size(); ++d) {
      if (reduced_[d]) { rd.push_back(s[d]); rs.push_back(st[d]); redCount *= s[d]; }
      else { kd.push_back(s[d]); ks.push_back(st[d]); }
    }
    const int64_t outCount = outputs[0]->elementCount();
    const bool group = groupLines(redCount, outCount, kGroupSize);
    KernelOptions o;
    o.define(kindDefine(kind_));
    if (group) o.define("GROUP").define("WG_SIZE", static_cast<long long>(kGroupSize));
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::reduce::reduce, o, &k));
    k->tensor(x).tensor(outputs[0]).arg(outCount).arg(static_cast<int64_t>(kd.size())).arg(toInt8(kd)).arg(toInt8(ks));
    k->arg(static_cast<int64_t>(rd.size())).arg(toInt8(rd)).arg(toInt8(rs)).arg(redCount);
    return group ? dispatchGroups(k, outCount, kGroupSize) : dispatch(k, {outCount});
  }

 private:
  ReduceKind kind_;
  std::vector<bool> reduced_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  const Tensor* x = inputs[0];
  if (!x || x->dtype() != DataType::kF32 || x->rank() > 8) return nullptr;
  const Tensor* axes = inputs.size() > 1 ? inputs[1] : nullptr;
  if (axes && axes->elementCount() > 0 && !axes->data()) return nullptr;
  ReduceParams p;
  if (!ReduceParams::parse(node, &p).isOk()) return nullptr;
  std::vector<bool> reduced;
  bool identity = false;
  if (!resolveReduceAxes(node, p, x->shape(), axes, &reduced, &identity).isOk()) return nullptr;
  if (identity) return makeExecution<OpenClByteCopy>(b, node);
  if (reducedShape(x->shape(), reduced, p.keepDims) != outputs[0]->shape()) return nullptr;
  return makeExecution<OpenClReduce>(b, node, p.kind, std::move(reduced));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, ReduceSum, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, ReduceMean, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, ReduceMax, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, ReduceMin, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, ReduceProd, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, ReduceL1, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, ReduceL2, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, ReduceSumSquare, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, ReduceLogSumExp, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, ReduceLogSum, create);

}  // namespace tessera
