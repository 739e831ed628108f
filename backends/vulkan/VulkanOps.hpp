// Small helpers shared by the Vulkan op files: strides, broadcast strides and packing of
// rank <= 6 index spaces into a kernel's 32-bit parameters.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/vulkan/VulkanBackend.hpp"
#include "core/src/SplitReduction.hpp"
#include "tessera/Registry.hpp"
#include "vulkan/shaders/strided_copy.hpp"

namespace tessera {
namespace vkops {

constexpr int kMaxRank = 6;  // of the index-space kernels (binary, strided_copy, pad, ...)

inline std::vector<int64_t> stridesOf(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * s[d + 1];
  return st;
}

// Strides of `in` read at the coordinates of `out` (numpy broadcasting, right-aligned).
inline std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out) {
  std::vector<int64_t> st(out.size(), 0);
  const std::vector<int64_t> own = stridesOf(in);
  const size_t off = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) st[off + d] = in[d] == 1 ? 0 : own[d];
  return st;
}

// Merges adjacent dimensions that every stride list walks contiguously (or all broadcast),
// so elementwise kernels decode as few coordinates as possible: a same-shape op becomes
// 1-D, a per-channel one 2-D. `strides` are per operand, aligned with `dims`.
inline void coalesce(std::vector<int64_t>* dims, std::vector<std::vector<int64_t>*> strides) {
  for (int d = static_cast<int>(dims->size()) - 1; d >= 0; --d)  // unit dims: coordinate 0
    if ((*dims)[d] == 1) {
      dims->erase(dims->begin() + d);
      for (auto* st : strides) st->erase(st->begin() + d);
    }
  for (int d = static_cast<int>(dims->size()) - 2; d >= 0; --d) {
    bool merge = true;
    for (auto* st : strides) merge = merge && (*st)[d] == (*st)[d + 1] * (*dims)[d + 1];
    if (!merge) continue;
    (*dims)[d] *= (*dims)[d + 1];
    dims->erase(dims->begin() + d + 1);
    for (auto* st : strides) {
      (*st)[d] = (*st)[d + 1];
      st->erase(st->begin() + d + 1);
    }
  }
  if (dims->empty()) {
    dims->push_back(1);
    for (auto* st : strides) st->push_back(0);
  }
}

// Appends exactly kMaxRank entries (the values, then `fill`).
inline void push6(std::vector<uint32_t>& p, const std::vector<int64_t>& v, int64_t fill = 0) {
  for (int d = 0; d < kMaxRank; ++d)
    p.push_back(static_cast<uint32_t>(static_cast<int32_t>(d < static_cast<int>(v.size()) ? v[d] : fill)));
}

// Invocations per work-group of every kernel (common.glsl's local_size_x): a kernel that
// gives each output a work-group dispatches outputs * kWorkGroupSize invocations.
constexpr int64_t kWorkGroupSize = 64;

// Kernels built on shaders/vulkan/lines.glsl reduce a line (row) with a work-group (their
// GROUP build: kWorkGroupSize invocations per line) or with one invocation (THREAD):
// groupPerLine (core/src/SplitReduction.hpp) chooses, from the line's length and how many
// lines there are. Lines of kGroupLineFrom or more always go to a group.
constexpr int64_t kGroupLineFrom = 128;
inline bool groupLine(Backend* b, int64_t n, int64_t lines) {
  return groupPerLine(n, lines, b->deviceKind(), "TESSERA_VULKAN_GROUP_LINES");
}

// Loop iterations of one invocation making `passes` passes over a line of n (its share of
// the line in a group, and the tree's steps), for withinLoopLimit: at most this whichever
// build runs (a group's share of a shorter line is shorter still).
inline int64_t lineIterations(int64_t n, int64_t passes) {
  return passes * (n >= kGroupLineFrom ? (n + kWorkGroupSize - 1) / kWorkGroupSize : n) + 64;
}

inline uint32_t u32(int64_t v) { return static_cast<uint32_t>(static_cast<int32_t>(v)); }

// The same creator for several op types.
#define TESSERA_VK_CREATOR(NAME)                                                          \
  std::unique_ptr<Execution> NAME(Backend* b, const Node& node, const Tensors& inputs, \
                                  const Tensors& outputs)

// Indices fit 32-bit kernel arithmetic.
inline bool fits32(const Tensors& ts) {
  for (const Tensor* t : ts)
    if (t && t->elementCount() >= (int64_t(1) << 31)) return false;
  return true;
}

// Whether a kernel whose invocations each run up to `iterations` loop iterations in all
// gives right answers on backend `b`: past the driver's invocationLoopLimit (lavapipe ends
// the loops early, silently; docs/VULKAN.md) the creator returns nullptr and the node runs
// on the CPU. Estimates count one per element a loop visits, times the loops nested in it.
inline bool withinLoopLimit(Backend* b, int64_t iterations) {
  const uint32_t limit = static_cast<VulkanBackend*>(b)->context().info().invocationLoopLimit;
  return limit == 0 || iterations < limit;
}

// Whether these f32 tensors can all be NC4HW4 storage images on backend `b`.
inline bool imagesFit(Backend* b, const Tensors& ts) { return static_cast<VulkanBackend*>(b)->imagesFit(ts); }

// selectLayouts of layout-agnostic ops (elementwise): stay in NC4HW4 images when the first
// input already is in NC4HW4 and `images` (the tensors fit), else work on NCHW buffers.
inline void followImages(bool images, const std::vector<Layout>& available, std::vector<Layout>* in,
                         std::vector<Layout>* out) {
  const Layout l = images && !available.empty() && available[0] == Layout::kNC4HW4 ? Layout::kNC4HW4 : Layout::kNCHW;
  in->assign(available.size(), Layout::kNCHW);
  if (!in->empty()) (*in)[0] = l;
  for (auto& o : *out) o = l;
}

// Appends the NC4HW4 grid (C, H, W) of `s` (see Nc4Geometry) and returns its pixel count.
inline int64_t pushGrid(std::vector<uint32_t>& p, const Shape& s) {
  const Nc4Geometry g = nc4Geometry(s);
  p.push_back(u32(g.c));
  p.push_back(u32(g.h));
  p.push_back(u32(g.w));
  return g.width() * g.height();
}

// Records y[outOffset + c.outStrides] = x[inOffset + (c % mods).inStrides] over `dims`
// (shaders/vulkan/strided_copy.comp). Empty `mods` means no wrap-around.
inline Status stridedCopy(VulkanExecution& exec, const VulkanBinding& x,
                          const VulkanBinding& y, std::vector<int64_t> dims,
                          std::vector<int64_t> inStrides, std::vector<int64_t> outStrides,
                          std::vector<int64_t> mods = {}, int64_t inOffset = 0, int64_t outOffset = 0) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  if (mods.empty()) {  // no wrap-around: dimensions may be merged
    coalesce(&dims, {&inStrides, &outStrides});
    mods.assign(dims.size(), int64_t(1) << 30);
  }
  std::vector<uint32_t> p = {u32(count), u32(dims.size())};
  push6(p, dims, 1);
  push6(p, inStrides);
  push6(p, outStrides);
  push6(p, mods, 1);
  p.push_back(u32(inOffset));
  p.push_back(u32(outOffset));
  return exec.dispatch(vkshaders::strided_copy, {x, y}, p, count);
}

}  // namespace vkops
}  // namespace tessera
