// CPU Where(condition, X, Y) with numpy broadcasting of all three. Only moves elements, so
// it dispatches on the element size and serves every dtype.
#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuWhere final : public Execution {
 public:
  using Execution::Execution;

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    if (!plan_.init({inputs[0]->shape(), inputs[1]->shape(), inputs[2]->shape()}) ||
        plan_.outputShape() != outputs[0]->shape()) {
      return Status::internal("Where: inputs do not broadcast to " + outputs[0]->describe());
    }
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const bool* cond = inputs[0]->data<bool>();
    const int64_t sc = plan_.spanStride(0), sx = plan_.spanStride(1), sy = plan_.spanStride(2);
    const bool ok = dispatchBySize(dataTypeSize(outputs[0]->dtype()), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* x = inputs[1]->data<T>();
      const T* y = inputs[2]->data<T>();
      T* out = outputs[0]->data<T>();
      cpuPool(*this).parallelFor(plan_.outputCount(), [&](int64_t begin, int64_t end) {
        plan_.forEachSpan(begin, end, [&](int64_t o, const int64_t* in, int64_t n) {
          const bool* c = cond + in[0];
          const T* a = x + in[1];
          const T* b = y + in[2];
          T* dst = out + o;
          if (sc && sx && sy) {
            for (int64_t i = 0; i < n; ++i) dst[i] = c[i] ? a[i] : b[i];
          } else {
            for (int64_t i = 0; i < n; ++i) dst[i] = c[i * sc] ? a[i * sx] : b[i * sy];
          }
        });
      }, kElementwiseGrain);
    });
    if (!ok) {
      return Status::unsupported(std::string("Where: element type ") +
                                 dataTypeName(outputs[0]->dtype()));
    }
    return Status::ok();
  }

 private:
  BroadcastPlan plan_;
};

std::unique_ptr<Execution> create(Backend* b, const Node&, const Tensors& inputs,
                                  const Tensors& outputs) {
  if (inputs.size() != 3 || !inputs[0] || !inputs[1] || !inputs[2]) return nullptr;
  if (inputs[0]->dtype() != DataType::kBool) return nullptr;
  const DataType t = inputs[1]->dtype();
  if (t != inputs[2]->dtype() || t == DataType::kString || dataTypeSize(t) == 0) return nullptr;
  return std::make_unique<CpuWhere>(b);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Where, create);

}  // namespace tessera
