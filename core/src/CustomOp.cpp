#include "tessera/CustomOp.hpp"

#include <deque>
#include <mutex>

namespace tessera {

namespace {

struct KernelTable {
  std::mutex mutex;
  std::deque<CustomKernel> kernels;  // a deque: found kernels stay put as others are added
};

KernelTable& table() {
  static KernelTable t;
  return t;
}

std::string describe(const CustomKernel& k) {
  return std::string(backendTypeName(k.backend)) + " kernel '" + k.provider + "' for " +
         (k.domain.empty() ? "" : k.domain + "::") + k.opType + " (" + dataTypeName(k.dtype) + ")";
}

bool matches(const CustomKernel& k, BackendType backend, const Node& node, DataType t) {
  return k.backend == backend && k.opType == node.opType && k.domain == node.domain &&
         (k.dtype == DataType::kUnknown || k.dtype == t);
}

}  // namespace

Status registerCustomKernel(CustomKernel kernel) {
  if (kernel.provider.empty()) return Status::invalid("custom kernel for '" + kernel.opType + "': no provider name");
  if (kernel.opType.empty()) return Status::invalid("custom kernel of provider '" + kernel.provider + "': no op type");
  if (!kernel.create) return Status::invalid(describe(kernel) + ": no creator function");
  KernelTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  for (const CustomKernel& k : t.kernels)
    if (k.backend == kernel.backend && k.provider == kernel.provider && k.domain == kernel.domain &&
        k.opType == kernel.opType && k.dtype == kernel.dtype)
      return Status::invalid(describe(kernel) + " is already registered");
  t.kernels.push_back(std::move(kernel));
  return Status::ok();
}

Status registerCustomOp(const std::string& domain, const std::string& opType, ShapeFunction shape) {
  const std::string name = (domain.empty() ? "" : domain + "::") + opType;
  if (opType.empty()) return Status::invalid("custom op: no op type");
  if (!shape) return Status::invalid("custom op '" + name + "': no shape function");
  if (!ShapeRegistry::instance().addIfNew({domain, opType, 1, 1 << 30, std::move(shape)}))
    return Status::invalid("custom op '" + name + "': the op type already exists");
  return Status::ok();
}

const ExecutionCreator* findCustomKernel(BackendType backend, const std::vector<std::string>& providers,
                                         const Node& node, DataType inputType, bool builtinExists) {
  KernelTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  for (const std::string& p : providers)
    for (const CustomKernel& k : t.kernels)
      if (k.provider == p && matches(k, backend, node, inputType)) return &k.create;
  if (builtinExists) return nullptr;
  for (const CustomKernel& k : t.kernels)
    if (matches(k, backend, node, inputType)) return &k.create;
  return nullptr;
}

}  // namespace tessera
