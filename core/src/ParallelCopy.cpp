#include "core/src/ParallelCopy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "tessera/ThreadPool.hpp"

namespace tessera {

namespace {
constexpr size_t kPiece = size_t(256) << 10;  // below this a thread's start costs more than it copies
}

void copyBytes(ThreadPool* pool, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;  // an empty tensor's data may be null, which memcpy may not take
  const int64_t pieces = static_cast<int64_t>(bytes / kPiece);
  if (!pool || pool->threads() == 1 || pieces < 2) {
    std::memcpy(dst, src, bytes);
    return;
  }
  // Pieces of whole cache lines; the last takes the remainder.
  const size_t piece = (bytes / static_cast<size_t>(pieces) + 63) & ~size_t(63);
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  pool->parallelFor(pieces, [&](int64_t begin, int64_t end) {
    const size_t from = static_cast<size_t>(begin) * piece;
    const size_t to = end == pieces ? bytes : std::min(bytes, static_cast<size_t>(end) * piece);
    if (from < to) std::memcpy(d + from, s + from, to - from);
  });
}

}  // namespace tessera
