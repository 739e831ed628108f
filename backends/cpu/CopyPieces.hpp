// Concat and Split with few outer rows (the dims before the axis) as lists of memcpys planned
// at resize, run over the pool in pieces of about 256 KiB. Split by rows, a batch-1 channel
// concat was one row: one thread copied every input (YOLOv8n's 19 Concats and 10 Splits at
// 640x640). Many rows still go row by row over the pool (a list would grow with them).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tessera/ThreadPool.hpp"

namespace tessera {

// One memcpy of `bytes` bytes: Concat's from byte `from` of input `tensor` to byte `at` of its
// output, Split's from byte `from` of its input to byte `at` of output `tensor`.
struct CopyPiece {
  size_t tensor;
  size_t from, at, bytes;
};

constexpr size_t kCopyPieceBytes = size_t(256) << 10;  // below this a thread's start costs more than it copies
constexpr int64_t kCopyPieceRows = 16;                  // at most this many outer rows go as pieces

// Appends one copy, cut into pieces of whole cache lines of about kCopyPieceBytes.
inline void addCopyPieces(std::vector<CopyPiece>* pieces, size_t tensor, size_t from, size_t at, size_t bytes) {
  if (bytes == 0) return;
  const size_t count = std::max<size_t>(1, bytes / kCopyPieceBytes);
  const size_t piece = (bytes / count + 63) & ~size_t(63);
  for (size_t done = 0; done < bytes; done += piece)
    pieces->push_back({tensor, from + done, at + done, std::min(piece, bytes - done)});
}

// copy(piece) for every piece: over the pool where they add up to two pieces' worth or more.
template <typename Copy>
void runCopyPieces(ThreadPool& pool, const std::vector<CopyPiece>& pieces, const Copy& copy) {
  size_t total = 0;
  for (const CopyPiece& c : pieces) total += c.bytes;
  if (pool.threads() == 1 || total < 2 * kCopyPieceBytes) {
    for (const CopyPiece& c : pieces) copy(c);
    return;
  }
  pool.parallelFor(static_cast<int64_t>(pieces.size()), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) copy(pieces[static_cast<size_t>(i)]);
  });
}

}  // namespace tessera
