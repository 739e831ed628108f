// Index helpers for the channel-packed layout NC4HW4 = [N, ceil(C/4), spatial..., 4] and for
// kernels that accept either it or plain NCHW. In both layouts the offset of element
// (n, c, s) — s the flattened spatial index — splits into a batch part, a channel part and
// a spatial part, so one kernel body serves both through ChannelAddressing.
#pragma once
#include "tessera/Backend.hpp"
#include <cstdint>
#include <cstring>

#include "tessera/Tensor.hpp"

namespace tessera {

constexpr int kChannelPack = 4;

inline int64_t channelBlocks(int64_t channels) { return (channels + kChannelPack - 1) / kChannelPack; }
inline int64_t roundUpChannels(int64_t channels) { return channelBlocks(channels) * kChannelPack; }

// Layout choice of the packed-data kernels (conv family, pooling, normalisations, Resize,
// Pad): a 4-D data input (input 0) and output 0 in NC4HW4, every other tensor NCHW.
inline void selectPackedData(const Tensors& inputs, bool packable, std::vector<Layout>* in,
                             std::vector<Layout>* out) {
  const Layout data = packable && inputs[0]->rank() == 4 ? Layout::kNC4HW4 : Layout::kNCHW;
  in->assign(inputs.size(), Layout::kNCHW);
  (*in)[0] = data;
  for (auto& l : *out) l = Layout::kNCHW;
  (*out)[0] = data;
}

// Offsets of (n, c, s) in an [N, C, spatial...] tensor stored as NCHW or NC4HW4.
struct ChannelAddressing {
  int64_t batch = 0;     // N
  int64_t channels = 0;  // C
  int64_t spatial = 1;   // product of the spatial extents
  bool packed = false;
  int64_t batchStride = 0;
  int64_t spatialStride = 1;  // 1 (NCHW) or 4 (NC4HW4)

  ChannelAddressing() = default;
  ChannelAddressing(const Shape& shape, Layout layout) {
    batch = shape.empty() ? 1 : shape[0];
    channels = shape.size() > 1 ? shape[1] : 1;
    spatial = 1;
    for (size_t d = 2; d < shape.size(); ++d) spatial *= shape[d];
    packed = layout == Layout::kNC4HW4;
    spatialStride = packed ? kChannelPack : 1;
    batchStride = (packed ? roundUpChannels(channels) : channels) * spatial;
  }

  int64_t channel(int64_t c) const {
    return packed ? (c / kChannelPack) * spatial * kChannelPack + (c % kChannelPack) : c * spatial;
  }
  int64_t offset(int64_t n, int64_t c, int64_t s) const {
    return n * batchStride + channel(c) + s * spatialStride;
  }
  // Physical elements of the whole tensor.
  int64_t physicalCount() const { return batch * batchStride; }
};

// Offset of index v along axis d of a tensor of `shape` addressed by `a` (offsets split
// additively over the axes in both layouts, so a kernel can sum per-axis tables).
inline int64_t axisOffset(const Shape& shape, const ChannelAddressing& a, int d, int64_t v) {
  int64_t stride = a.packed ? a.spatialStride : 1;
  if (a.packed && d == 0) return v * a.batchStride;
  if (a.packed && d == 1) return a.channel(v);
  for (size_t k = d + 1; k < shape.size(); ++k) stride *= shape[k];
  return v * stride;
}

// One NC4HW4 pixel of f32 as a 4-wide vector: compilers do not reliably vectorise the 4-lane
// loops over a block on their own.
typedef float Float4 __attribute__((vector_size(16)));
inline Float4 loadFloat4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void storeFloat4(float* p, Float4 v) { std::memcpy(p, &v, sizeof(v)); }
inline Float4 splatFloat4(float f) { return Float4{f, f, f, f}; }
inline Float4 maxFloat4(Float4 a, Float4 b) { return a > b ? a : b; }

// Writes zeros into the padding lanes (channels C..roundUp(C)-1) of an NC4HW4 tensor, which
// every kernel producing NC4HW4 must do so that consumers may read whole blocks.
template <typename T>
inline void zeroPaddingLanes(T* data, const ChannelAddressing& a) {
  if (!a.packed || a.channels % kChannelPack == 0) return;
  const int64_t lastBlock = a.channels / kChannelPack;
  const int64_t firstPad = a.channels % kChannelPack;
  for (int64_t n = 0; n < a.batch; ++n) {
    T* block = data + n * a.batchStride + lastBlock * a.spatial * kChannelPack;
    for (int64_t s = 0; s < a.spatial; ++s)
      for (int64_t l = firstPad; l < kChannelPack; ++l) block[s * kChannelPack + l] = T(0);
  }
}

}  // namespace tessera
