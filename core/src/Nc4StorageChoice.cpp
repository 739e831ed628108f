#include "core/src/Nc4StorageChoice.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

#include "core/src/CacheFile.hpp"
#include "core/src/ConvNetTiming.hpp"
#include "tessera/Log.hpp"

namespace tessera {

namespace {

std::mutex gMutex;  // held while measuring: concurrent first Sessions measure once
std::map<std::string, Nc4StorageChoice> gChoices;  // by device key
int gMeasurements = 0;

std::string msText(double ms) {
  if (ms < 0) return "failed";
  std::ostringstream s;
  s.precision(3);
  s << ms << " ms";
  return s.str();
}

Nc4StorageChoice fromTimes(double imageMs, double bufferMs, const char* how) {
  Nc4StorageChoice c;
  c.imageMs = imageMs;
  c.bufferMs = bufferMs;
  // A storage that could not run the net loses; both failing keeps images, as before.
  c.images = bufferMs < 0 || (imageMs >= 0 && imageMs <= bufferMs);
  c.why = std::string(how) + ": images " + msText(imageMs) + ", buffers " + msText(bufferMs);
  return c;
}

}  // namespace

std::string nc4StorageCacheKey(const std::string& device) { return "nc4 storage v1|" + device; }

std::string nc4StorageCachePath(const std::string& device) {
  const std::string dir = cachefile::directory();
  const std::string key = nc4StorageCacheKey(device);
  return dir.empty() ? "" : dir + "/nc4_storage_" + cachefile::hex64(cachefile::fnv1a64(key.data(), key.size())) + ".txt";
}

Nc4StorageChoice chooseNc4Storage(BackendType t, const BackendOptions& options, const std::string& device,
                                  const char* envVar) {
  Nc4StorageChoice c;
  if (options.nc4Storage != Nc4Storage::kAuto) {
    c.images = options.nc4Storage == Nc4Storage::kImage;
    c.why = "forced by the Session's options";
    return c;
  }
  if (const char* e = std::getenv(envVar); e && *e && std::string(e) != "auto") {
    const std::string v = e;
    if (v == "image" || v == "buffer") {
      c.images = v == "image";
      c.why = std::string("forced by ") + envVar + "=" + v;
      return c;
    }
    logMessage(LogLevel::kWarning, std::string(envVar) + "='" + v + "' is not image, buffer or auto: measuring");
  }
  std::lock_guard<std::mutex> lock(gMutex);
  if (auto it = gChoices.find(device); it != gChoices.end()) return it->second;
  const std::string path = nc4StorageCachePath(device), key = nc4StorageCacheKey(device);
  std::string data;
  double imageMs = -1, bufferMs = -1;
  if (!path.empty() && cachefile::read(path, key, &data) == cachefile::ReadResult::kHit &&
      (std::istringstream(data) >> imageMs >> bufferMs)) {
    c = fromTimes(imageMs, bufferMs, "measured before (cached)");
  } else {
    // A few runs: enough to tell the two apart where it matters, cheap on CPU-run drivers.
    BackendOptions o = options;
    o.nc4Storage = Nc4Storage::kImage;
    imageMs = timeConvNet(t, o, 1, 3);
    o.nc4Storage = Nc4Storage::kBuffer;
    bufferMs = timeConvNet(t, o, 1, 3);
    ++gMeasurements;
    c = fromTimes(imageMs, bufferMs, "measured");
    if (!path.empty()) {
      std::ostringstream out;
      out.precision(17);  // read back exactly
      out << imageMs << " " << bufferMs << "\n";
      cachefile::makeDirs(cachefile::directory());
      cachefile::write(path, key, out.str());
    }
    logMessage(LogLevel::kNote, std::string(backendTypeName(t)) + " NC4HW4 storage: " + describeNc4Storage(c));
  }
  gChoices[device] = c;
  return c;
}

std::string describeNc4Storage(const Nc4StorageChoice& c) {
  return std::string(c.images ? "images" : "buffers") + " (" + c.why + ")";
}

int nc4StorageMeasurements() {
  std::lock_guard<std::mutex> lock(gMutex);
  return gMeasurements;
}

void forgetNc4StorageChoices() {
  std::lock_guard<std::mutex> lock(gMutex);
  gChoices.clear();
}

}  // namespace tessera
