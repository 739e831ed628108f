// Strided views: an output written in row-major order, read from a source through one
// stride per output dimension (0 repeats a value, a negative stride walks backwards).
// Transpose, Slice, Tile, Expand, DepthToSpace and SpaceToDepth are each one strided copy
// with a different view, so the copy loop lives here once.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/cpu/TypeDispatch.hpp"
#include "tessera/Shape.hpp"
#include "tessera/ThreadPool.hpp"

#include "backends/cpu/Transpose4x4.hpp"

namespace tessera {

// Element strides of a plain row-major tensor of this shape.
inline std::vector<int64_t> rowMajorStrides(const Shape& s) {
  std::vector<int64_t> strides(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) strides[i - 1] = strides[i] * s[i];
  return strides;
}

struct StridedView {
  std::vector<int64_t> extents;  // output extents, walked row-major
  std::vector<int64_t> strides;  // source element step per output dimension
  int64_t offset = 0;            // source element read for output index 0

  int64_t count() const { return elementCount(extents); }

  // Drops extent-1 dimensions and merges neighbours that are contiguous in the source, so
  // the innermost loop is as long as possible (a pure reshape becomes one memcpy).
  void simplify() {
    std::vector<int64_t> e, s;
    for (size_t i = 0; i < extents.size(); ++i) {
      if (extents[i] == 1) continue;
      if (!e.empty() && s.back() == strides[i] * extents[i]) {
        e.back() *= extents[i];
        s.back() = strides[i];
      } else {
        e.push_back(extents[i]);
        s.push_back(strides[i]);
      }
    }
    if (e.empty()) {
      e.push_back(1);
      s.push_back(1);
    }
    extents = std::move(e);
    strides = std::move(s);
  }
};

// The view of `src` (row-major) with its dimensions reordered: output dim i is source dim
// perm[i] (ONNX Transpose).
inline StridedView permutedView(const Shape& src, const std::vector<int64_t>& perm) {
  const std::vector<int64_t> srcStrides = rowMajorStrides(src);
  StridedView v;
  for (int64_t p : perm) {
    v.extents.push_back(src[p]);
    v.strides.push_back(srcStrides[p]);
  }
  return v;
}

// A view whose last two dimensions are a 2-D transpose (the source contiguous along the
// next-to-last, strided along the last), copied in tiles of about 256 elements, so that each
// source line is read once while it is in L1; row by row, each output row had walked all of
// the source (NCHW -> NHWC of 1x64x128x128 then a Relu, 2 threads, alternating in one
// process: median 2.17 -> 1.27 ms; NHWC -> NCHW of 4 channels at 512x512 alike).
template <typename T>
void copyTransposedTiles(const T* src, T* dst, const StridedView& view, ThreadPool& pool) {
  const int rank = static_cast<int>(view.extents.size());
  const int64_t A = view.extents[rank - 2], B = view.extents[rank - 1], strideB = view.strides[rank - 1];
  constexpr int64_t kTileElements = 256;
  const int64_t tileA = std::min<int64_t>(A, 16), tileB = kTileElements / tileA;
  const int64_t tilesA = (A + tileA - 1) / tileA, tilesB = (B + tileB - 1) / tileB;
  const int64_t planes = view.count() / (A * B);
  pool.parallelFor(planes * tilesA * tilesB, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      int64_t plane = t / (tilesA * tilesB), srcPos = view.offset;
      for (int d = rank - 3; d >= 0; --d) {
        srcPos += plane % view.extents[d] * view.strides[d];
        plane /= view.extents[d];
      }
      const int64_t a0 = t / tilesB % tilesA * tileA, b0 = t % tilesB * tileB;
      const int64_t a1 = std::min(A, a0 + tileA), b1 = std::min(B, b0 + tileB);
      T* out = dst + t / (tilesA * tilesB) * A * B;
      int64_t aDone = a0;
#if defined(__SSE2__)
      if constexpr (sizeof(T) == 4) {
        // 4 x 4 blocks through SSE registers (Transpose4x4.hpp): 4 source
        // lines in, 4 output rows out, where one element at a time each took a load and a
        // store (2 threads, alternating invocations, the op: NHWC -> NCHW of 4 channels at
        // 512x512 0.37-0.39 -> 0.18-0.21 ms, NCHW -> NHWC of 64 channels at 128x128 1.28-1.36
        // -> 0.34-0.45 ms).
        const int64_t bEnd = b0 + (b1 - b0) / 4 * 4;
        for (; aDone + 4 <= a1; aDone += 4) {
          const float* in = reinterpret_cast<const float*>(src + srcPos + aDone);
          float* row = reinterpret_cast<float*>(out + aDone * B);
          for (int64_t b = b0; b < bEnd; b += 4) transpose4x4(in + b * strideB, strideB, row + b, B);
          for (int q = 0; q < 4; ++q)  // the tile's last columns
            for (int64_t b = bEnd; b < b1; ++b) out[(aDone + q) * B + b] = src[srcPos + aDone + q + b * strideB];
        }
      }
#endif
      for (int64_t a = aDone; a < a1; ++a) {
        const T* in = src + srcPos + a;
        T* row = out + a * B;
        for (int64_t b = b0; b < b1; ++b) row[b] = in[b * strideB];
      }
    }
  }, std::max<int64_t>(1, 16384 / kTileElements));
}

template <typename T>
void copyStridedTyped(const T* src, T* dst, const StridedView& view, ThreadPool& pool) {
  const int64_t total = view.count();
  if (total == 0) return;
  const int rank = static_cast<int>(view.extents.size());
  const int64_t inner = view.extents.back();
  const int64_t innerStride = view.strides.back();
  if (rank >= 2 && innerStride != 1 && innerStride != 0 && view.strides[rank - 2] == 1)
    return copyTransposedTiles(src, dst, view, pool);
  const int64_t rows = total / inner;
  // Chunks of at least ~16K elements: below that, threading costs more than it gains.
  const int64_t minRows = std::max<int64_t>(1, 16384 / inner);
  pool.parallelFor(rows, [&](int64_t begin, int64_t end) {
    // Odometer over the outer dimensions, started at row `begin`.
    std::vector<int64_t> index(rank > 1 ? rank - 1 : 0, 0);
    int64_t srcPos = view.offset;
    int64_t r = begin;
    for (int d = rank - 2; d >= 0; --d) {
      index[d] = r % view.extents[d];
      r /= view.extents[d];
      srcPos += index[d] * view.strides[d];
    }
    T* out = dst + begin * inner;
    for (int64_t row = begin; row < end; ++row) {
      const T* in = src + srcPos;
      if (innerStride == 1) {
        std::memcpy(out, in, static_cast<size_t>(inner) * sizeof(T));
      } else if (innerStride == 0) {
        std::fill(out, out + inner, *in);
      } else {
        for (int64_t i = 0; i < inner; ++i) out[i] = in[i * innerStride];
      }
      out += inner;
      for (int d = rank - 2; d >= 0; --d) {
        srcPos += view.strides[d];
        if (++index[d] < view.extents[d]) break;
        srcPos -= index[d] * view.strides[d];
        index[d] = 0;
      }
    }
  }, minRows);
}

// Copies the view of `src` into the contiguous `dst`, for any element of 1, 2, 4 or 8
// bytes. False for other element sizes. Call view.simplify() first (in onResize).
inline bool copyStrided(const void* src, void* dst, size_t elementSize, const StridedView& view,
                        ThreadPool& pool) {
  return dispatchBySize(elementSize, [&](auto tag) {
    using T = typename decltype(tag)::type;
    copyStridedTyped(static_cast<const T*>(src), static_cast<T*>(dst), view, pool);
  });
}

}  // namespace tessera
