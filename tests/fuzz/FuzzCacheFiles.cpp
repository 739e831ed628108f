// libFuzzer target: bytes as an on-disk cache entry -> the checked reader every cache file
// goes through (OpenCL program binaries, the Vulkan pipeline cache), and as an OpenCL
// tuning file -> the tuner's loader. Nothing read may crash; only intact entries are hits.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "core/src/CacheFile.hpp"
#if TESSERA_FUZZ_OPENCL_TUNER
#include "backends/opencl/OpenClRuntime.hpp"
#include "backends/opencl/Tuner.hpp"
#endif

namespace {

const std::string& workDir() {
  static const std::string dir = [] {
    char d[] = "/tmp/tessera-fuzz-cache-XXXXXX";
    std::string path = mkdtemp(d) ? d : "/tmp";
    setenv("TESSERA_CACHE_DIR", path.c_str(), 1);
    return path;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::string entry = workDir() + "/entry.bin";
  { std::ofstream(entry, std::ios::binary) << bytes; }
  std::string out;
  if (cachefile::read(entry, "fuzz-key", &out) == cachefile::ReadResult::kHit && out.size() > size) std::abort();

#if TESSERA_FUZZ_OPENCL_TUNER
  // The tuning file of a made-up device (no OpenCL call is needed to load it).
  opencl::DeviceInfo device;
  device.deviceName = "fuzz";
  device.maxWorkGroupSize = 256;
  const std::string tuning = workDir() + "/opencl/tuning-" +
                             opencl::hex64(opencl::fnv1a64(device.cacheIdentity())) + ".txt";
  cachefile::makeDirs(workDir() + "/opencl");
  { std::ofstream(tuning, std::ios::binary) << bytes; }
  opencl::Tuner tuner(device);
#endif
  return 0;
}
