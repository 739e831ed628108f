#include "backends/opencl/ProgramCache.hpp"

#include <string>

#include "backends/opencl/OpenClRuntime.hpp"
#include "core/src/CacheFile.hpp"

namespace tessera {
namespace opencl {

namespace {

std::string buildLog(cl_program program, cl_device_id device) {
  size_t n = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  if (n) clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, &log[0], nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n' || log.back() == ' ')) log.pop_back();
  if (log.size() > 4000) log = log.substr(0, 4000) + "\n...";
  return log;
}

}  // namespace

ProgramCache::ProgramCache(cl_context context, const DeviceInfo& device)
    : context_(context), device_(device.device), identity_(device.cacheIdentity()) {
  const std::string base = cacheDirectory();
  if (!base.empty()) dir_ = base + "/opencl";
  if (const char* e = std::getenv("TESSERA_OPENCL_BINARY_CACHE"); e && std::string(e) == "off") disk_ = false;
}

ProgramCache::~ProgramCache() {
  for (auto& kv : programs_) clReleaseProgram(kv.second);
}

ProgramCacheStats ProgramCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

Status ProgramCache::get(const ProgramSource& src, const std::string& options, cl_program* out) {
  return buildUncached(src.name, src.source, src.hash, options, out);
}

Status ProgramCache::build(const std::string& name, const std::string& source,
                           const std::string& options, cl_program* out) {
  return buildUncached(name, source, fnv1a64(source), options, out);
}

Status ProgramCache::kernel(const KernelId& id, const std::string& options, cl_kernel* out) {
  cl_program program = nullptr;
  TESSERA_RETURN_IF_ERROR(get(*id.program, options, &program));
  cl_int err = CL_SUCCESS;
  *out = clCreateKernel(program, id.name, &err);
  if (err != CL_SUCCESS)
    return Status::internal(std::string("OpenCL kernel '") + id.name + "' of program '" +
                            id.program->name + "': " + errorName(err));
  return Status::ok();
}

// In memory, then on disk, then from source (and saved to disk).
Status ProgramCache::buildUncached(const std::string& name, const std::string& source,
                                   uint64_t sourceHash, const std::string& options, cl_program* out) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto memKey = std::make_pair(name + "#" + hex64(sourceHash), options);
  auto it = programs_.find(memKey);
  if (it != programs_.end()) {
    ++stats_.memoryHits;
    *out = it->second;
    return Status::ok();
  }
  const std::string fullKey = identity_ + "\n" + options + "\n" + name + "#" + hex64(sourceHash);
  const std::string path = dir_.empty() ? "" : dir_ + "/" + name + "-" + hex64(fnv1a64(fullKey)) + ".bin";
  cl_int err = CL_SUCCESS;

  // A binary is loaded only when its header, size and checksum match (a corrupt file once
  // made PoCL abort while deserialising it); one the driver still rejects is removed too.
  std::string bin;
  if (disk_ && !path.empty()) {
    const cachefile::ReadResult r = cachefile::read(path, fullKey, &bin);
    if (r == cachefile::ReadResult::kDiscarded) ++stats_.discarded;
    if (r == cachefile::ReadResult::kHit && !bin.empty()) {
      const unsigned char* ptr = reinterpret_cast<const unsigned char*>(bin.data());
      const size_t size = bin.size();
      cl_int binStatus = CL_SUCCESS;
      cl_program p = clCreateProgramWithBinary(context_, 1, &device_, &size, &ptr, &binStatus, &err);
      if (err == CL_SUCCESS && binStatus == CL_SUCCESS &&
          clBuildProgram(p, 1, &device_, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
        ++stats_.loadedFromDisk;
        programs_[memKey] = p;
        *out = p;
        return Status::ok();
      }
      if (p) clReleaseProgram(p);
      cachefile::discard(path, "the driver rejected the program binary");
      ++stats_.discarded;
    }
  }

  const char* text = source.c_str();
  const size_t length = source.size();
  cl_program p = clCreateProgramWithSource(context_, 1, &text, &length, &err);
  if (err != CL_SUCCESS) return Status::internal("OpenCL program '" + name + "': " + errorName(err));
  err = clBuildProgram(p, 1, &device_, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    const std::string log = buildLog(p, device_);
    clReleaseProgram(p);
    return Status::internal("OpenCL program '" + name + "' failed to build (" + errorName(err) +
                            ") with options '" + options + "':\n" + log);
  }
  ++stats_.builtFromSource;
  programs_[memKey] = p;
  *out = p;

  if (disk_ && !path.empty()) {
    size_t size = 0;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) == CL_SUCCESS && size) {
      std::string data(size, '\0');
      unsigned char* ptr = reinterpret_cast<unsigned char*>(&data[0]);
      if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(ptr), &ptr, nullptr) == CL_SUCCESS)
        cachefile::write(path, fullKey, data);  // an unwritable directory only disables caching
    }
  }
  return Status::ok();
}

}  // namespace opencl
}  // namespace tessera
