// How the CPU splits an image over its threads: in bands of rows, one a thread, every
// channel of a band on the same thread, wherever a kernel can. The convs split their work by
// pixels, so an op that follows the same bands (a depthwise conv, a layout conversion) reads
// what the op before it wrote on the same core, from that core's cache; split by channel
// blocks instead, each thread read half its input from the other core's (MobileNetV2 and a
// face detector 5-10% slower on a 2-core Zen 5). Planes of fewer than kMinBandRows rows a
// thread stay whole (one band; the kernel splits them by channel blocks): a window reaches
// far into the neighbouring band, and each thread's input comes in short pieces. MobileNetV2's
// depthwise convs at 14x14 in 7-row bands took 0.057-0.089 ms a step, split by channel
// blocks 0.038-0.063 (2 threads, Zen 5, interleaved); at 28x28 and up the bands win.
//
// A band's output starts on a 64-byte line of every plane: where two threads wrote the two
// ends of one line, in step, plane after plane, the line went back and forth between their
// caches (a depthwise conv of 576 channels at 14x14 ran no faster on 2 threads than on one,
// and an NC4HW4 -> NCHW copy of it took 10x longer). Where no edge can start a line in
// every plane, the image is one band.
#pragma once
#include <algorithm>
#include <cstdint>
#include <numeric>

#include "backends/cpu/CacheAligned.hpp"

namespace tessera {

constexpr int64_t kMinBandRows = 8;

struct SpatialBands {
  int64_t count = 1;  // bands
  int64_t rows = 0;   // of the image
  int64_t step = 1;   // band edges fall on multiples of `step` rows
  // The first row of band b (band b is [row(b), row(b + 1))): rows * b / count, moved to the
  // nearest multiple of `step`.
  int64_t row(int64_t b) const {
    if (b >= count) return rows;
    const int64_t even = rows * b / count;
    return std::min(rows, (even + step / 2) / step * step);
  }
};

// Bands for `threads` threads over an image of `rows` rows of `rowPixels` pixels, written in
// a layout whose planes start on a line and hold `pixelBytes` bytes a pixel (16 for NC4HW4
// fp32, 4 for NCHW fp32): `threads` bands, or one.
inline SpatialBands spatialBands(int64_t rows, int64_t rowPixels, int64_t pixelBytes, int threads) {
  SpatialBands b;
  b.rows = rows;
  const int64_t line = static_cast<int64_t>(kCacheLine);
  if (threads <= 1 || rows < kMinBandRows * threads || pixelBytes <= 0 || pixelBytes > line || line % pixelBytes != 0)
    return b;
  const int64_t pixelsPerLine = line / pixelBytes;
  b.step = pixelsPerLine / std::gcd(rowPixels, pixelsPerLine);
  // Each plane must start on a line too, and each band keep at least `step` rows (then the
  // rounded edges stay in order and no band is empty).
  if ((rows * rowPixels) % pixelsPerLine != 0 || rows / threads < b.step) return SpatialBands{1, rows, 1};
  b.count = threads;
  return b;
}

}  // namespace tessera
