#include "backends/opencl/OpenClRuntime.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <sstream>

#include "core/src/CacheFile.hpp"

namespace tessera {
namespace opencl {

namespace {

std::string platformString(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, &s[0], nullptr);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string deviceString(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, &s[0], nullptr);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

template <typename T>
T deviceValue(cl_device_id d, cl_device_info what, T fallback) {
  T v = fallback;
  if (clGetDeviceInfo(d, what, sizeof(T), &v, nullptr) != CL_SUCCESS) return fallback;
  return v;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string errorName(cl_int err) {
  static const std::map<cl_int, const char*> names = {
      {CL_DEVICE_NOT_FOUND, "CL_DEVICE_NOT_FOUND"},
      {CL_DEVICE_NOT_AVAILABLE, "CL_DEVICE_NOT_AVAILABLE"},
      {CL_COMPILER_NOT_AVAILABLE, "CL_COMPILER_NOT_AVAILABLE"},
      {CL_MEM_OBJECT_ALLOCATION_FAILURE, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
      {CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES"},
      {CL_OUT_OF_HOST_MEMORY, "CL_OUT_OF_HOST_MEMORY"},
      {CL_IMAGE_FORMAT_NOT_SUPPORTED, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
      {CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE"},
      {CL_INVALID_VALUE, "CL_INVALID_VALUE"},
      {CL_INVALID_DEVICE, "CL_INVALID_DEVICE"},
      {CL_INVALID_CONTEXT, "CL_INVALID_CONTEXT"},
      {CL_INVALID_COMMAND_QUEUE, "CL_INVALID_COMMAND_QUEUE"},
      {CL_INVALID_MEM_OBJECT, "CL_INVALID_MEM_OBJECT"},
      {CL_INVALID_IMAGE_SIZE, "CL_INVALID_IMAGE_SIZE"},
      {CL_INVALID_BINARY, "CL_INVALID_BINARY"},
      {CL_INVALID_BUILD_OPTIONS, "CL_INVALID_BUILD_OPTIONS"},
      {CL_INVALID_PROGRAM, "CL_INVALID_PROGRAM"},
      {CL_INVALID_PROGRAM_EXECUTABLE, "CL_INVALID_PROGRAM_EXECUTABLE"},
      {CL_INVALID_KERNEL_NAME, "CL_INVALID_KERNEL_NAME"},
      {CL_INVALID_KERNEL, "CL_INVALID_KERNEL"},
      {CL_INVALID_ARG_INDEX, "CL_INVALID_ARG_INDEX"},
      {CL_INVALID_ARG_VALUE, "CL_INVALID_ARG_VALUE"},
      {CL_INVALID_ARG_SIZE, "CL_INVALID_ARG_SIZE"},
      {CL_INVALID_KERNEL_ARGS, "CL_INVALID_KERNEL_ARGS"},
      {CL_INVALID_WORK_DIMENSION, "CL_INVALID_WORK_DIMENSION"},
      {CL_INVALID_WORK_GROUP_SIZE, "CL_INVALID_WORK_GROUP_SIZE"},
      {CL_INVALID_WORK_ITEM_SIZE, "CL_INVALID_WORK_ITEM_SIZE"},
      {CL_INVALID_GLOBAL_WORK_SIZE, "CL_INVALID_GLOBAL_WORK_SIZE"},
      {CL_INVALID_BUFFER_SIZE, "CL_INVALID_BUFFER_SIZE"},
      {CL_INVALID_OPERATION, "CL_INVALID_OPERATION"},
      {CL_PLATFORM_NOT_FOUND_KHR, "CL_PLATFORM_NOT_FOUND_KHR"},
  };
  auto it = names.find(err);
  return std::string(it == names.end() ? "OpenCL error" : it->second) + " (" + std::to_string(err) + ")";
}

bool DeviceInfo::hasExtension(const std::string& name) const {
  std::istringstream words(extensions);
  for (std::string w; words >> w;)
    if (w == name) return true;
  return false;
}

std::string DeviceInfo::capabilities() const {
  // What a kernel may ask for with #pragma OPENCL EXTENSION (extensions need no enabling on
  // the context): an op that needs one checks hasExtension() when its execution is created.
  std::string s;
  const std::pair<const char*, const char*> known[] = {
      {"cl_khr_fp16", "fp16"}, {"cl_khr_fp64", "fp64"}, {"cl_khr_int64_base_atomics", "int64 atomics"},
      {"cl_khr_subgroups", "subgroups"}, {"cl_intel_subgroups", "subgroups (intel)"},
      {"cl_khr_integer_dot_product", "int8 dot product"}};
  for (const auto& k : known)
    if (hasExtension(k.first)) s += (s.empty() ? "" : ", ") + std::string(k.second);
  return (s.empty() ? std::string("none") : s) + " (int64 arithmetic: always, OpenCL C)";
}

std::string DeviceInfo::cacheIdentity() const {
  return platformName + "|" + vendor + "|" + deviceName + "|" + deviceVersion + "|" + driverVersion;
}

uint64_t fnv1a64(const std::string& s, uint64_t h) { return cachefile::fnv1a64(s.data(), s.size(), h); }

std::string hex64(uint64_t v) { return cachefile::hex64(v); }

std::string cacheDirectory() { return cachefile::directory(); }

Status enumerateDevices(std::vector<DeviceInfo>* out) {
  out->clear();
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &np);
  if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0))
    return Status::unavailable("no OpenCL platform found (the ICD loader found no driver: "
                               "install one, e.g. pocl-opencl-icd, or check OCL_ICD_VENDORS)");
  if (err != CL_SUCCESS) return Status::unavailable("clGetPlatformIDs failed: " + errorName(err));
  std::vector<cl_platform_id> platforms(np);
  clGetPlatformIDs(np, platforms.data(), nullptr);
  std::string problems;
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd);
    if (err != CL_SUCCESS || nd == 0) {
      problems += "platform '" + platformString(p, CL_PLATFORM_NAME) + "' has no device; ";
      continue;
    }
    std::vector<cl_device_id> devices(nd);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devices.data(), nullptr);
    for (cl_device_id d : devices) {
      DeviceInfo i;
      i.platform = p;
      i.device = d;
      i.index = static_cast<int>(out->size());
      i.platformName = platformString(p, CL_PLATFORM_NAME);
      i.deviceName = deviceString(d, CL_DEVICE_NAME);
      i.vendor = deviceString(d, CL_DEVICE_VENDOR);
      i.driverVersion = deviceString(d, CL_DRIVER_VERSION);
      i.deviceVersion = deviceString(d, CL_DEVICE_VERSION);
      i.extensions = deviceString(d, CL_DEVICE_EXTENSIONS);
      i.gpu = (deviceValue<cl_device_type>(d, CL_DEVICE_TYPE, 0) & CL_DEVICE_TYPE_GPU) != 0;
      i.images = deviceValue<cl_bool>(d, CL_DEVICE_IMAGE_SUPPORT, CL_FALSE) == CL_TRUE;
      i.fp16 = (" " + i.extensions + " ").find(" cl_khr_fp16 ") != std::string::npos;
      i.image2dMaxWidth = deviceValue<size_t>(d, CL_DEVICE_IMAGE2D_MAX_WIDTH, 0);
      i.image2dMaxHeight = deviceValue<size_t>(d, CL_DEVICE_IMAGE2D_MAX_HEIGHT, 0);
      i.maxWorkGroupSize = deviceValue<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, 1);
      clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(i.maxWorkItemSizes), i.maxWorkItemSizes, nullptr);
      i.globalMemBytes = deviceValue<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE, 0);
      i.maxAllocBytes = deviceValue<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, 0);
      i.computeUnits = deviceValue<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS, 1);
      if (!i.images) i.image2dMaxWidth = i.image2dMaxHeight = 0;
      out->push_back(i);
    }
  }
  if (out->empty())
    return Status::unavailable("no OpenCL device found (" + problems.substr(0, problems.size() - 2) + ")");
  return Status::ok();
}

Status chooseDevice(const std::vector<DeviceInfo>& devices, const std::string& selector,
                    DeviceInfo* out) {
  if (selector.empty()) {
    for (const DeviceInfo& d : devices)  // a GPU first, then whatever there is
      if (d.gpu) { *out = d; return Status::ok(); }
    *out = devices.front();
    return Status::ok();
  }
  const bool numeric = std::all_of(selector.begin(), selector.end(), ::isdigit);
  if (numeric) {
    const size_t i = std::stoul(selector);
    if (i < devices.size()) { *out = devices[i]; return Status::ok(); }
    return Status::notFound("OpenCL device " + selector + " does not exist (" +
                            std::to_string(devices.size()) + " device(s) found)");
  }
  for (const DeviceInfo& d : devices)
    if (lower(d.deviceName).find(lower(selector)) != std::string::npos ||
        lower(d.platformName).find(lower(selector)) != std::string::npos) {
      *out = d;
      return Status::ok();
    }
  return Status::notFound("no OpenCL device matches '" + selector + "'");
}

std::string describeDevices() {
  std::vector<DeviceInfo> devices;
  Status st = enumerateDevices(&devices);
  if (!st.isOk()) return "unavailable: " + st.message();
  std::string selector;
  if (const char* e = std::getenv("TESSERA_OPENCL_DEVICE")) selector = e;
  DeviceInfo chosen;
  const bool haveChoice = chooseDevice(devices, selector, &chosen).isOk();
  std::ostringstream os;
  cl_platform_id last = nullptr;
  for (const DeviceInfo& d : devices) {
    if (d.platform != last) {
      os << "platform '" << d.platformName << "'\n";
      last = d.platform;
    }
    os << "  [" << d.index << "] " << d.deviceName << " (" << (d.gpu ? "GPU" : "CPU/other") << ", "
       << d.deviceVersion << ", driver " << d.driverVersion << ")"
       << (haveChoice && chosen.device == d.device ? "  <- default" : "") << "\n";
    os << "      " << d.computeUnits << " compute units, " << (d.globalMemBytes >> 20) << " MiB, "
       << "max work-group " << d.maxWorkGroupSize << "\n";
    if (d.images)
      os << "      images: yes, image2d up to " << d.image2dMaxWidth << "x" << d.image2dMaxHeight
         << " (larger NC4HW4 tensors use buffers)\n";
    else
      os << "      images: no (NC4HW4 tensors use buffers)\n";
    os << "      fp16: " << (d.fp16 ? "yes (cl_khr_fp16)" : "no cl_khr_fp16: --precision fp16 runs in fp32")
       << "\n";
    os << "      capabilities: " << d.capabilities() << "\n";
  }
  os << "select with TESSERA_OPENCL_DEVICE=<index or name>";
  const std::string dir = cacheDirectory();
  os << "; program cache: " << (dir.empty() ? std::string("memory only") : dir + "/opencl");
  return os.str();
}

// ---- Runtime -------------------------------------------------------------------------------

Status Runtime::get(const std::string& selector, std::shared_ptr<Runtime>* out) {
  static std::mutex mutex;
  // Kept for the life of the process, so built programs serve every later Session; never
  // destroyed, because at exit the driver may already be unloaded.
  static auto* runtimes = new std::map<std::string, std::shared_ptr<Runtime>>();
  std::lock_guard<std::mutex> lock(mutex);
  std::vector<DeviceInfo> devices;
  TESSERA_RETURN_IF_ERROR(enumerateDevices(&devices));
  DeviceInfo info;
  TESSERA_RETURN_IF_ERROR(chooseDevice(devices, selector, &info));
  const std::string key = info.cacheIdentity() + "#" + std::to_string(info.index);
  auto found = runtimes->find(key);
  if (found != runtimes->end()) {
    *out = found->second;
    return Status::ok();
  }
  std::shared_ptr<Runtime> r(new Runtime);
  r->info_ = info;
  cl_int err = CL_SUCCESS;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(info.platform), 0};
  r->context_ = clCreateContext(props, 1, &info.device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS || !r->context_)
    return Status::unavailable("cannot create an OpenCL context on '" + info.deviceName + "': " + errorName(err));
  r->programs_ = std::make_unique<ProgramCache>(r->context_, r->info_);
  r->tuner_ = std::make_unique<Tuner>(r->info_);
  (*runtimes)[key] = r;
  *out = r;
  return Status::ok();
}

Runtime::~Runtime() {
  programs_.reset();
  if (context_) clReleaseContext(context_);
}

Status Runtime::createQueue(bool profiling, cl_command_queue* out) {
  cl_int err = CL_SUCCESS;
  *out = clCreateCommandQueue(context_, info_.device, profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
  if (err != CL_SUCCESS || !*out)
    return Status::unavailable("cannot create an OpenCL queue on '" + info_.deviceName + "': " + errorName(err));
  return Status::ok();
}

}  // namespace opencl
}  // namespace tessera
