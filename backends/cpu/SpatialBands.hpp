// How the CPU splits an image over its threads: in bands of rows, one a thread, every
// channel of a band on the same thread, wherever a kernel can. The convs split their work by
// pixels, so an op that follows the same bands (a depthwise conv, a layout conversion) reads
// what the op before it wrote on the same core, from that core's cache; split by channel
// blocks instead, each thread read half its input from the other core's (MobileNetV2 and a
// face detector 5-10% slower on a 2-core Zen 5). Planes of fewer than kMinBandRows rows a
// thread stay whole (one band; the kernel splits them by channel blocks): bands of one to
// three rows are uneven, and a window reaches far into the neighbouring band.
#pragma once
#include <cstdint>

namespace tessera {

constexpr int64_t kMinBandRows = 4;

// Bands of an image of `rows` rows on `threads` threads: `threads`, or 1.
inline int64_t spatialBands(int64_t rows, int threads) { return rows >= kMinBandRows * threads ? threads : 1; }

// The first row of band b of `bands` (band b is [bandRow(b), bandRow(b + 1))).
inline int64_t bandRow(int64_t rows, int64_t bands, int64_t b) { return rows * b / bands; }

}  // namespace tessera
