// CPU Constant: copies the attribute's tensor into the output.
#include <cstring>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/Constant.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuConstant final : public Execution {
 public:
  CpuConstant(Backend* b, ConstantParams p) : Execution(b), params_(std::move(p)) {}

  Status onExecute(const Tensors&, const Tensors& outputs) override {
    Tensor& y = *outputs[0];
    if (y.byteSize() != params_.value.byteSize()) {
      return Status::internal("Constant: output " + y.describe() + " does not match its value " +
                              params_.value.describe());
    }
    if (y.byteSize()) std::memcpy(y.data(), params_.value.data(), y.byteSize());
    return Status::ok();
  }

 private:
  ConstantParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors&, const Tensors&) {
  ConstantParams p;
  if (!ConstantParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuConstant>(b, std::move(p));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Constant, create);

}  // namespace tessera
