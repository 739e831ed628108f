// CPU ConstantOfShape: fills the output with the value attribute.
#include <cstring>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/TypeDispatch.hpp"
#include "ops/ConstantOfShape.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuConstantOfShape final : public Execution {
 public:
  CpuConstantOfShape(Backend* b, const ConstantOfShapeParams& p) : Execution(b), params_(p) {}

  Status onExecute(const Tensors&, const Tensors& outputs) override {
    Tensor& y = *outputs[0];
    const int64_t n = y.elementCount();
    dispatchBySize(dataTypeSize(params_.dtype), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T v;
      std::memcpy(&v, params_.valueBytes, sizeof(T));
      T* dst = y.data<T>();
      for (int64_t i = 0; i < n; ++i) dst[i] = v;
    });
    return Status::ok();
  }

 private:
  ConstantOfShapeParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors&, const Tensors&) {
  ConstantOfShapeParams p;
  if (!ConstantOfShapeParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuConstantOfShape>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, ConstantOfShape, create);

}  // namespace tessera
