#include "core/src/CacheFile.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "tessera/Log.hpp"

namespace tessera {
namespace cachefile {
namespace {

const char kMagic[] = "TESSERA-CACHE-2";

std::string header(const std::string& key, const std::string& data) {
  return std::string(kMagic) + "\n" + hex64(fnv1a64(key.data(), key.size())) + " " + std::to_string(data.size()) +
         " " + hex64(fnv1a64(data.data(), data.size())) + "\n";
}

}  // namespace

uint64_t fnv1a64(const void* data, size_t size, uint64_t h) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string hex64(uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

void discard(const std::string& path, const std::string& why) {
  std::remove(path.c_str());
  logMessage(LogLevel::kNote, "cache file '" + path + "' discarded (" + why + "); it will be rebuilt");
}

ReadResult read(const std::string& path, const std::string& key, std::string* data) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return ReadResult::kMissing;
  std::string magic, keyHash, checksum;
  size_t size = 0;
  std::string line;
  if (!std::getline(f, magic) || magic != kMagic || !std::getline(f, line)) {
    discard(path, "not a Tessera cache file of this version");
    return ReadResult::kDiscarded;
  }
  std::istringstream fields(line);
  if (!(fields >> keyHash >> size >> checksum) || keyHash != hex64(fnv1a64(key.data(), key.size()))) {
    discard(path, "written for another device, driver or source");
    return ReadResult::kDiscarded;
  }
  std::string body((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (body.size() != size) {
    discard(path, "truncated: " + std::to_string(body.size()) + " of " + std::to_string(size) + " bytes");
    return ReadResult::kDiscarded;
  }
  if (hex64(fnv1a64(body.data(), body.size())) != checksum) {
    discard(path, "checksum mismatch");
    return ReadResult::kDiscarded;
  }
  *data = std::move(body);
  return ReadResult::kHit;
}

std::string directory(const std::string& sub) {
  std::string base;
  if (const char* d = std::getenv("TESSERA_CACHE_DIR")) base = d;
  else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) base = std::string(x) + "/tessera";
  else if (const char* h = std::getenv("HOME"); h && *h) base = std::string(h) + "/.cache/tessera";
  return base.empty() || sub.empty() ? base : base + "/" + sub;
}

void makeDirs(const std::string& dir) {
  for (size_t p = 1; p <= dir.size(); ++p)
    if (p == dir.size() || dir[p] == '/') ::mkdir(dir.substr(0, p).c_str(), 0755);
}

bool write(const std::string& path, const std::string& key, const std::string& data) {
  static std::atomic<uint64_t> counter{0};
  makeDirs(path.substr(0, path.rfind('/')));
  // Unique per process, thread and call: two writers of one entry never share a temporary.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id())) + "." +
                          std::to_string(counter++);
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) return false;
    f << header(key, data);
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!f.flush()) {
      f.close();
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace cachefile
}  // namespace tessera
