// Vulkan Concat: one copy per input into its place in the output. NC4HW4 images (rank 3-4,
// along N, H, W, or along C when every input but the last has a multiple of 4 channels)
// copy pixels, two to four images along C in one dispatch; the rest are strided copies of
// buffers. Kernels: shaders/vulkan/image_place.comp, concat_channels.comp, strided_copy.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Concat.hpp"
#include "vulkan/shaders/concat_channels.hpp"
#include "vulkan/shaders/image_place.hpp"

namespace tessera {
namespace {

class VulkanConcat final : public VulkanExecution {
 public:
  VulkanConcat(Backend* b, const Node& n, int64_t axis, bool images)
      : VulkanExecution(b, n.label()), axis_(axis), images_(images) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    bool anyImage = false;
    for (Layout l : available) anyImage = anyImage || l == Layout::kNC4HW4;
    in->assign(available.size(), images_ && anyImage ? Layout::kNC4HW4 : Layout::kNCHW);
    (*out)[0] = images_ && anyImage ? Layout::kNC4HW4 : Layout::kNCHW;
  }

  Status onResize(const Tensors& in, const Tensors& out) override {
    if (out[0]->layout() == Layout::kNC4HW4) return placeImages(in, out[0]);
    const std::vector<int64_t> os = vkops::stridesOf(out[0]->shape());
    int64_t offset = 0;
    for (const Tensor* t : in) {
      if (t->elementCount() > 0)
        TESSERA_RETURN_IF_ERROR(vkops::stridedCopy(*this, VulkanBackend::binding(t), VulkanBackend::binding(out[0]),
                                                   t->shape(), vkops::stridesOf(t->shape()), os, {}, 0, offset * os[axis_]));
      offset += t->dim(static_cast<int>(axis_));
    }
    return Status::ok();
  }

  // Two to four inputs along C: one dispatch over the output's pixels (concat_channels.comp).
  Status concatChannels(const Tensors& in, const Tensor* out) {
    const Nc4Geometry gy = nc4Geometry(out->shape());
    std::vector<uint32_t> p = {vkops::u32(gy.width() * gy.height()), vkops::u32(gy.c), vkops::u32(gy.h),
                               vkops::u32(gy.w)};
    std::vector<VulkanBinding> b;
    for (size_t k = 0; k < kConcatInputsInOneKernel; ++k) {
      p.push_back(vkops::u32(k < in.size() ? in[k]->dim(1) : 0));
      b.push_back(VulkanBackend::binding(in[k < in.size() ? k : 0]));  // placeholders never read
    }
    int64_t first = 0;
    for (size_t k = 0; k < kConcatInputsInOneKernel; ++k) {
      p.push_back(k < in.size() ? vkops::u32(first / 4) : 0x7fffffffu);
      if (k < in.size()) first += in[k]->dim(1);
    }
    b.push_back(VulkanBackend::binding(out));
    return dispatch(vkshaders::concat_channels, b, p, gy.width() * gy.height());
  }

  Status placeImages(const Tensors& in, const Tensor* out) {
    if (concatInOneKernel(in, axis_)) return concatChannels(in, out);
    const Nc4Geometry gy = nc4Geometry(out->shape());
    int64_t offset = 0;  // along the axis, in elements (channels: a multiple of 4)
    for (const Tensor* t : in) {
      const Nc4Geometry gx = nc4Geometry(t->shape());
      std::vector<int64_t> at = {0, 0, 0, 0};  // n c4 y x
      const int rank = static_cast<int>(out->rank());
      const int slot = axis_ == 0 ? 0 : axis_ == 1 ? 1 : (rank == 3 || axis_ == 3) ? 3 : 2;
      at[slot] = slot == 1 ? offset / 4 : offset;
      std::vector<uint32_t> p = {vkops::u32(gx.width() * gx.height())};
      for (int64_t v : {gx.c, gx.h, gx.w, gy.c, gy.h, gy.w}) p.push_back(vkops::u32(v));
      for (int64_t v : at) p.push_back(vkops::u32(v));
      if (t->elementCount() > 0)
        TESSERA_RETURN_IF_ERROR(dispatch(vkshaders::image_place,
                                         {VulkanBackend::binding(t), VulkanBackend::binding(out)}, p,
                                         gx.width() * gx.height()));
      offset += t->dim(static_cast<int>(axis_));
    }
    return Status::ok();
  }

 private:
  int64_t axis_;
  bool images_;
};

// Whether the inputs can be placed as whole pixels: rank 3-4 (not the flattened W of rank
// 5+), along C only at multiples of 4.
bool imagePlaceable(Backend* b, const Tensors& inputs, const Tensors& outputs, int64_t axis) {
  const int64_t rank = outputs[0]->rank();
  if (rank < 3 || rank > 4) return false;
  for (size_t i = 0; i + 1 < inputs.size(); ++i)
    if (axis == 1 && inputs[i]->dim(1) % 4 != 0) return false;
  Tensors all = inputs;
  all.push_back(outputs[0]);
  return vkops::imagesFit(b, all);
}

TESSERA_VK_CREATOR(createConcat) {
  if (!allFloat32(inputs) || !allFloat32(outputs) || !vkops::fits32(outputs)) return nullptr;
  ConcatParams p;
  if (!ConcatParams::parse(node, &p).isOk()) return nullptr;
  const int64_t rank = outputs[0]->rank();
  if (rank == 0 || rank > vkops::kMaxRank) return nullptr;
  for (const Tensor* t : inputs) if (!t) return nullptr;
  const int64_t axis = p.axis < 0 ? p.axis + rank : p.axis;
  if (axis < 0 || axis >= rank) return nullptr;
  return std::make_unique<VulkanConcat>(b, node, axis, imagePlaceable(b, inputs, outputs, axis));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Concat, createConcat);

}  // namespace tessera
