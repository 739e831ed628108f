// OpenCL elementwise binary ops (f32) with numpy broadcasting: on NC4HW4 tensors when the
// operands are already NC4HW4 (ranks 3-4, broadcasting whole dimensions), else on plain
// buffers (any broadcast, rank <= 8). Mod with fmod = 1 (C's fmod, the only Mod ONNX
// allows on floats) is one more kernel op.
#include "backends/opencl/OpenClExecution.hpp"
#include "ops/Binary.hpp"
#include "ops/Mod.hpp"
#include "tessera/Registry.hpp"
#include "kernels/binary.hpp"
#include "kernels/unary.hpp"

namespace tessera {
namespace {

const char* opDefine(BinaryKind k) {
  switch (k) {
    case BinaryKind::kAdd: return "OP_ADD";
    case BinaryKind::kSub: return "OP_SUB";
    case BinaryKind::kMul: return "OP_MUL";
    case BinaryKind::kDiv: return "OP_DIV";
    case BinaryKind::kPow: return "OP_POW";
    case BinaryKind::kMax: return "OP_MAX";
    case BinaryKind::kMin: return "OP_MIN";
    case BinaryKind::kSum: return "OP_SUM";
    case BinaryKind::kMean: return "OP_MEAN";
  }
  return "OP_ADD";
}

cl_int4 dims4(const Shape& s) {
  const Nc4Geometry g = nc4Geometry(elementCount(s) == 1 ? Shape{} : s);
  return cl_int4{{static_cast<cl_int>(g.n), static_cast<cl_int>(g.c), static_cast<cl_int>(g.h),
                  static_cast<cl_int>(g.w)}};
}

// Whether the NC4HW4 kernel can serve: rank 3 or 4, operands of the output's rank
// broadcasting whole dimensions, or single values (scalars) of any rank.
bool nc4Capable(const Tensors& inputs, const Shape& out) {
  if (out.size() < 3 || out.size() > 4) return false;
  for (const Tensor* t : inputs) {
    if (t->elementCount() == 1) continue;
    if (t->shape().size() != out.size()) return false;
    for (size_t d = 0; d < out.size(); ++d)
      if (t->shape()[d] != out[d] && t->shape()[d] != 1) return false;
  }
  return true;
}

class OpenClBinary final : public OpenClExecution {
 public:
  // `op`: the kernel's OP_ define, when not the kind's own (Mod).
  OpenClBinary(Backend* b, BinaryKind k, bool nc4, const char* op = nullptr)
      : OpenClExecution(b), kind_(k), op_(op ? op : opDefine(k)), nc4_(nc4) {}
  // One operand is a constant scalar: a single-tensor kernel with the value as an argument.
  void setScalar(int index, float value) {
    scalarIndex_ = index;
    scalar_ = value;
  }

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    bool anyNc4 = false;
    for (Layout l : available) anyNc4 = anyNc4 || l == Layout::kNC4HW4;
    allLayouts(nc4_ && anyNc4 ? Layout::kNC4HW4 : Layout::kNCHW, available, in, out);
  }

  // Two operands: one kernel. More (variadic Max/Min/Sum/Mean, plain layout): folded left to
  // right into the output (the first step broadcasts to the full shape, later steps read it
  // back element for element); Mean sums, then scales by 1/N.
  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* y = outputs[0];
    if (scalarIndex_ >= 0) return scalarStep(inputs[1 - scalarIndex_], y);
    const size_t n = inputs.size();
    const char* op = n == 1 ? "OP_IDENTITY" : (kind_ == BinaryKind::kMean && n > 2) ? "OP_SUM" : op_;
    for (size_t i = 1; i < std::max<size_t>(n, 2); ++i) {
      const Tensor* a = i == 1 ? inputs[0] : y;
      const Tensor* b = n == 1 ? inputs[0] : inputs[i];
      TESSERA_RETURN_IF_ERROR(step(a, b, y, op));
    }
    if (kind_ == BinaryKind::kMean && n > 2) {
      ClKernel* k = nullptr;
      const float scale = 1.f / static_cast<float>(n);
      TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::unary::unary_plain, KernelOptions().define("OP_SCALE"), &k));
      k->tensor(y).tensor(y).arg(y->elementCount()).arg(scale).arg(0.f).arg(0.f);
      return dispatch(k, {y->elementCount()});
    }
    return Status::ok();
  }

 private:
  Status scalarStep(const Tensor* x, const Tensor* y) {
    KernelOptions o;
    o.define(op_);
    ClKernel* k = nullptr;
    if (isNc4(y)) {
      const Nc4Geometry g = nc4Geometry(y->shape());
      TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::binary::binary_scalar_nc4, o.storage("src", x).storage("dst", y), &k));
      k->tensor(x).tensor(y).arg(g.c).arg(g.w).arg(g.width()).arg(g.height()).arg(scalar_).arg(scalarIndex_ == 0 ? 1 : 0);
      return dispatchNc4(k, g);
    }
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::binary::binary_scalar_plain, o, &k));
    k->tensor(x).tensor(y).arg(y->elementCount()).arg(scalar_).arg(scalarIndex_ == 0 ? 1 : 0);
    return dispatch(k, {y->elementCount()});
  }

  Status step(const Tensor* a, const Tensor* b, const Tensor* y, const char* op) {
    KernelOptions o;
    o.define(op);
    ClKernel* k = nullptr;
    if (isNc4(y)) {
      const Nc4Geometry g = nc4Geometry(y->shape());
      TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::binary::binary_nc4,
                                        o.storage("src", a).storage("src1", b).storage("dst", y), &k));
      k->tensor(a).tensor(b).tensor(y).arg(dims4(a->shape())).arg(dims4(b->shape())).arg(dims4(y->shape()));
      k->arg(g.width()).arg(g.height());
      return dispatchNc4(k, g);
    }
    const Shape& s = y->shape();
    const int rank = static_cast<int>(s.size());
    cl_int8 dims{}, as{}, bs{};
    auto strides = [&](const Shape& in, cl_int8* st) {
      int64_t stride = 1;
      const int off = rank - static_cast<int>(in.size());
      for (int d = rank - 1; d >= 0; --d) {
        const int id = d - off;
        const int64_t extent = id >= 0 ? in[id] : 1;
        st->s[d] = extent == 1 ? 0 : static_cast<cl_int>(stride);
        stride *= extent;
      }
    };
    for (int d = 0; d < rank; ++d) dims.s[d] = static_cast<cl_int>(s[d]);
    strides(a->shape(), &as);
    strides(b->shape(), &bs);
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::binary::binary_plain, o, &k));
    k->tensor(a).tensor(b).tensor(y).arg(y->elementCount()).arg(rank).arg(dims).arg(as).arg(bs);
    return dispatch(k, {y->elementCount()});
  }

  BinaryKind kind_;
  const char* op_;
  bool nc4_;
  int scalarIndex_ = -1;  // the input that is a constant scalar, or -1
  float scalar_ = 0.f;
};

bool supported(const Tensors& inputs, const Tensors& outputs) {
  for (const Tensor* t : inputs)
    if (!t || t->dtype() != DataType::kF32 || t->rank() > 8) return false;
  return outputs[0]->rank() <= 8;
}

// A constant scalar operand whose tensor partner already has the output's shape becomes a
// kernel argument.
std::unique_ptr<Execution> withScalar(std::unique_ptr<OpenClBinary> e, const Tensors& inputs, const Tensors& outputs) {
  if (inputs.size() == 2)
    for (int i = 0; i < 2; ++i)
      if (inputs[i]->elementCount() == 1 && inputs[i]->data() && inputs[1 - i]->shape() == outputs[0]->shape()) {
        e->setScalar(i, inputs[i]->data<float>()[0]);
        break;
      }
  return e;
}

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  BinaryParams p;
  if (!BinaryParams::parse(node, &p).isOk()) return nullptr;
  if (inputs.empty() || (inputs.size() > 2 && !BinaryParams::isVariadic(p.kind))) return nullptr;
  if (!supported(inputs, outputs)) return nullptr;
  // More than two operands fold in place into the output: buffers only (an image may not be
  // read and written by one kernel).
  const bool nc4 = inputs.size() <= 2 && nc4Capable(inputs, outputs[0]->shape());
  auto e = std::make_unique<OpenClBinary>(b, p.kind, nc4);
  e->setLabel(node.label());
  return withScalar(std::move(e), inputs, outputs);
}

std::unique_ptr<Execution> createMod(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  ModParams p;
  if (!ModParams::parse(node, &p).isOk() || !p.fmod || inputs.size() != 2 || !supported(inputs, outputs))
    return nullptr;
  auto e = std::make_unique<OpenClBinary>(b, BinaryKind::kAdd, nc4Capable(inputs, outputs[0]->shape()), "OP_MOD");
  e->setLabel(node.label());
  return withScalar(std::move(e), inputs, outputs);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Add, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Sub, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Mul, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Div, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Pow, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Max, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Min, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Sum, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Mean, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Mod, createMod);

}  // namespace tessera
