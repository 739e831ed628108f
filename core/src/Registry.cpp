#include "tessera/Registry.hpp"

#include <mutex>
#include <set>
#include <shared_mutex>

namespace tessera {

Status ShapeContext::error(const std::string& message) const {
  return Status::invalid(node.label() + ": " + message);
}

ShapeRegistry& ShapeRegistry::instance() {
  static ShapeRegistry r;
  return r;
}

namespace {
using ReadLock = std::shared_lock<std::shared_mutex>;
using WriteLock = std::unique_lock<std::shared_mutex>;
std::string shapeKey(const std::string& domain, const std::string& opType) {
  return (domain == "ai.onnx" ? std::string() : domain) + "::" + opType;
}
}  // namespace

void ShapeRegistry::add(ShapeRegistration r) {
  const std::string key = shapeKey(r.domain, r.opType);
  WriteLock lock(mutex_);
  map_.emplace(key, std::move(r));
}

bool ShapeRegistry::addIfNew(ShapeRegistration r) {
  const std::string key = shapeKey(r.domain, r.opType);
  WriteLock lock(mutex_);
  if (map_.count(key)) return false;
  map_.emplace(key, std::move(r));
  return true;
}

const ShapeFunction* ShapeRegistry::find(const std::string& domain, const std::string& opType,
                                         int opset) const {
  ReadLock lock(mutex_);
  auto range = map_.equal_range(shapeKey(domain, opType));
  for (auto it = range.first; it != range.second; ++it)
    if (opset >= it->second.sinceVersion && opset <= it->second.untilVersion) return &it->second.fn;
  return nullptr;
}

bool ShapeRegistry::knows(const std::string& domain, const std::string& opType) const {
  ReadLock lock(mutex_);
  return map_.count(shapeKey(domain, opType)) != 0;
}

std::vector<std::string> ShapeRegistry::opTypes() const {
  std::set<std::string> s;
  ReadLock lock(mutex_);
  for (const auto& kv : map_) s.insert(kv.second.opType);
  return {s.begin(), s.end()};
}

ExecutionRegistry& ExecutionRegistry::instance() {
  static ExecutionRegistry r;
  return r;
}

void ExecutionRegistry::add(BackendType backend, const std::string& opType, ExecutionCreator c) {
  WriteLock lock(mutex_);
  map_[{backend, opType}] = std::move(c);
}

const ExecutionCreator* ExecutionRegistry::find(BackendType backend, const std::string& opType) const {
  ReadLock lock(mutex_);
  auto it = map_.find({backend, opType});
  return it == map_.end() ? nullptr : &it->second;
}

std::vector<std::string> ExecutionRegistry::opTypes(BackendType backend) const {
  std::vector<std::string> out;
  ReadLock lock(mutex_);
  for (const auto& kv : map_) if (kv.first.first == backend) out.push_back(kv.first.second);
  return out;
}

BackendRegistry& BackendRegistry::instance() {
  static BackendRegistry r;
  return r;
}

void BackendRegistry::add(BackendFactory f) {
  WriteLock lock(mutex_);
  map_[f.type] = std::move(f);
}

const BackendFactory* BackendRegistry::find(BackendType t) const {
  ReadLock lock(mutex_);
  auto it = map_.find(t);
  return it == map_.end() ? nullptr : &it->second;
}

std::vector<BackendType> BackendRegistry::types() const {
  std::vector<BackendType> out;
  ReadLock lock(mutex_);
  for (const auto& kv : map_) out.push_back(kv.first);
  return out;
}

const char* backendTypeName(BackendType t) {
  switch (t) {
    case BackendType::kCPU: return "cpu";
    case BackendType::kOpenCL: return "opencl";
    case BackendType::kVulkan: return "vulkan";
  }
  return "?";
}

bool parseBackendType(const std::string& s, BackendType* out) {
  if (s == "cpu") *out = BackendType::kCPU;
  else if (s == "opencl") *out = BackendType::kOpenCL;
  else if (s == "vulkan") *out = BackendType::kVulkan;
  else return false;
  return true;
}

}  // namespace tessera
