// One cache file on disk (an OpenCL program binary, a Vulkan pipeline cache): a header with
// a magic line, the hash of the entry's key (device, driver, sources, options), the size and
// a checksum of the data. A file whose header, size or checksum does not match is removed
// with a note and reported as missing, so the caller rebuilds; nothing half-written or
// foreign ever reaches a driver. Writes go to a unique temporary file, then rename.
#pragma once
#include <cstdint>
#include <string>

namespace tessera {
namespace cachefile {

// FNV-1a, 64 bits (cache keys and checksums; not a defence against a deliberate forger),
// and its 16-digit hexadecimal form.
uint64_t fnv1a64(const void* data, size_t size, uint64_t h = 0xcbf29ce484222325ULL);
std::string hex64(uint64_t v);

enum class ReadResult { kHit, kMissing, kDiscarded };

// Reads the data stored under `key`; kDiscarded when a file was there but was corrupt,
// truncated or written for another key (it is then removed and a note logged).
ReadResult read(const std::string& path, const std::string& key, std::string* data);
// Writes atomically (unique temporary name, then rename); false when the directory is not
// writable (caching is then simply off for this entry).
bool write(const std::string& path, const std::string& key, const std::string& data);
// Removes an entry the driver rejected after it passed the checks, with a note saying why.
void discard(const std::string& path, const std::string& why);
// Creates the directories of `dir` (mkdir -p).
void makeDirs(const std::string& dir);
// Tessera's cache directory, with `sub` appended when not empty: $TESSERA_CACHE_DIR, else
// $XDG_CACHE_HOME/tessera, else ~/.cache/tessera. Empty (caching off) when TESSERA_CACHE_DIR
// is set but empty, or nothing says where home is.
std::string directory(const std::string& sub = "");

}  // namespace cachefile
}  // namespace tessera
