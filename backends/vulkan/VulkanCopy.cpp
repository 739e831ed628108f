// Planned host <-> device copies and device layout conversions. An upload copies the host
// tensor into a staging buffer at run time (before the segment is submitted; on a GPU over
// several threads, core/src/ParallelCopy.hpp); the recorded commands move it into the
// tensor, converting layout (NCHW or NC4HW4 buffers, NC4HW4 images) and precision on the
// GPU. A download records the reverse and copies the staging buffer out once the segment
// has finished. On the device, NCHW buffers and NC4HW4
// images convert into each other with image_convert.comp.
#include "backends/vulkan/VulkanBackend.hpp"
#include "core/src/ParallelCopy.hpp"
#include "vulkan/shaders/image_convert.hpp"
#include "vulkan/shaders/layout_convert.hpp"

namespace tessera {
namespace {

using vkshaders::ShaderId;

int64_t spatialOf(const Shape& s) {
  int64_t n = 1;
  for (size_t d = 2; d < s.size(); ++d) n *= s[d];
  return n;
}

// NC4HW4 <-> NCHW conversion on the GPU (32-bit elements, rank >= 2).
bool gpuConvertible(const Tensor* a, const Tensor* b) {
  return a->layout() != b->layout() && dataTypeSize(a->dtype()) == 4 && a->rank() >= 2 &&
         (a->layout() == Layout::kNC4HW4 || b->layout() == Layout::kNC4HW4) &&
         (a->layout() == Layout::kNCHW || b->layout() == Layout::kNCHW);
}

class VulkanTransfer final : public Execution {
 public:
  bool deviceTimeMs(double* ms) const override {
    const double v = static_cast<const VulkanBackend*>(backend())->timerMs(timer_);
    if (v < 0) return false;
    *ms = v;
    return true;
  }

  VulkanTransfer(VulkanBackend* b, const Tensor* src, const Tensor* dst)
      : Execution(b), upload_(src->backend() != b), download_(dst->backend() != b) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    VulkanBackend& vk = *static_cast<VulkanBackend*>(backend());
    const Tensor* src = inputs[0];
    Tensor* dst = outputs[0];
    const std::string label = "copy '" + src->name() + "'";
    if (src->dtype() != dst->dtype() || src->shape() != dst->shape())
      return Status::unsupported("Vulkan: copies keep dtype and shape (" + src->describe() + " -> " + dst->describe() + ")");
    if (!upload_ && !download_) return convertOnDevice(vk, src, dst, label);
    if (upload_ == download_) return Status::internal("Vulkan: " + label + " must go between the host and the device");
    hostPool_ = vk.hostCopyPool();  // made now, not on the first run
    const Tensor* device = upload_ ? dst : src;
    const Tensor* host = upload_ ? src : dst;
    if (device->layout() == Layout::kNC4HW4) return transferImage(vk, device, host, dst, label);
    // The device side is NCHW (in fp16 when the backend stores f32 as fp16); the host side
    // may be NC4HW4. A kernel converts layout and precision on the GPU; only what it does
    // not cover (NC4HW4 of non-32-bit types) is converted on the host.
    const bool sameLayout = src->layout() == dst->layout();
    const bool half = vk.storageBytes(device) != device->byteSize();
    const bool onGpu = half || (!sameLayout && gpuConvertible(src, dst));
    hostConvert_ = !sameLayout && !onGpu;
    hostLayout_ = hostConvert_ ? device->layout() : host->layout();
    // Staging holds the host bytes (in the device's layout when converting on the host).
    TESSERA_RETURN_IF_ERROR(vk.planBuffer(hostConvert_ ? device->byteSize() : host->byteSize(), &staging_));
    const VulkanBinding stage{staging_->buffer, 0, staging_->size};
    const VulkanBinding tensor = VulkanBackend::binding(device);
    if (!onGpu) {
      TESSERA_RETURN_IF_ERROR(vk.copy(upload_ ? stage.buffer : tensor.buffer, 0, upload_ ? tensor.buffer : stage.buffer,
                                      0, vk.storageBytes(device), label, &timer_));
    } else {
      const bool packedHost = host->layout() == Layout::kNC4HW4;
      const int64_t total = upload_ ? device->elementCount() : physicalElementCount(host->shape(), host->layout());
      const std::vector<uint32_t> params = {static_cast<uint32_t>(total),
                                            static_cast<uint32_t>(device->rank() > 1 ? device->dim(1) : 1),
                                            static_cast<uint32_t>(spatialOf(device->shape()))};
      const ShaderId kernel =
          upload_ ? (packedHost ? vkshaders::layout_convert_UP_NCHW : vkshaders::layout_convert_UP_SAME)
                  : (packedHost ? vkshaders::layout_convert_DOWN_NC4HW4 : vkshaders::layout_convert_DOWN_SAME);
      TESSERA_RETURN_IF_ERROR(vk.dispatch(kernel, upload_ ? std::vector<VulkanBinding>{stage, tensor}
                                                          : std::vector<VulkanBinding>{tensor, stage},
                                          params, total, label, &timer_));
    }
    return afterDownload(vk, dst, device);
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    runDst_ = outputs[0];  // a download's host tensor this run (the Session may hand its caller's)
    if (!upload_) return Status::ok();
    if (!staging_) return Status::internal("Vulkan upload: planned without a staging buffer");
    const Tensor* src = inputs[0];
    if (!src->data()) return Status::internal("Vulkan upload: " + src->describe() + " has no host data");
    if (!hostConvert_) {
      copyBytes(hostPool_, staging_->mapped, src->data(), src->byteSize());
    } else {
      Tensor tmp = Tensor::hostWrap(staging_->mapped, src->shape(), src->dtype(), hostLayout_);
      convertLayout(*src, tmp);
    }
    return Status::ok();
  }

 private:
  // NCHW buffer <-> NC4HW4 image on this device.
  Status convertOnDevice(VulkanBackend& vk, const Tensor* src, Tensor* dst, const std::string& label) {
    const bool toImage = src->layout() == Layout::kNCHW && dst->layout() == Layout::kNC4HW4;
    const bool fromImage = src->layout() == Layout::kNC4HW4 && dst->layout() == Layout::kNCHW;
    if (!toImage && !fromImage)
      return Status::unsupported("Vulkan: no device conversion " + src->describe() + " -> " + dst->describe());
    return dispatchImage(vk, toImage ? vkshaders::image_convert_FROM_NCHW : vkshaders::image_convert_TO_NCHW,
                         VulkanBackend::binding(src), VulkanBackend::binding(dst), src->shape(), label);
  }

  // Host <-> NC4HW4 image through an fp32 staging buffer in the host's layout (NCHW or
  // packed NC4HW4; other host layouts are converted to NCHW on the host).
  Status transferImage(VulkanBackend& vk, const Tensor* device, const Tensor* host, Tensor* dst,
                       const std::string& label) {
    if (device->dtype() != DataType::kF32)
      return Status::unsupported("Vulkan: NC4HW4 images hold f32 tensors, not " + device->describe());
    const bool packed = host->layout() == Layout::kNC4HW4;
    hostConvert_ = !packed && host->layout() != Layout::kNCHW;
    hostLayout_ = hostConvert_ ? Layout::kNCHW : host->layout();
    TESSERA_RETURN_IF_ERROR(vk.planBuffer(hostConvert_ ? host->elementCount() * 4 : host->byteSize(), &staging_));
    const VulkanBinding stage{staging_->buffer, 0, staging_->size};
    const VulkanBinding image = VulkanBackend::binding(device);
    if (upload_)
      TESSERA_RETURN_IF_ERROR(dispatchImage(vk, packed ? vkshaders::image_convert_FROM_PACKED_F32
                                                       : vkshaders::image_convert_FROM_NCHW_F32,
                                            stage, image, device->shape(), label));
    else
      TESSERA_RETURN_IF_ERROR(dispatchImage(vk, packed ? vkshaders::image_convert_TO_PACKED_F32
                                                       : vkshaders::image_convert_TO_NCHW_F32,
                                            image, stage, device->shape(), label));
    return afterDownload(vk, dst, device);
  }

  Status dispatchImage(VulkanBackend& vk, ShaderId kernel, const VulkanBinding& from, const VulkanBinding& to,
                       const Shape& shape, const std::string& label) {
    const Nc4Geometry g = nc4Geometry(shape);
    const int64_t pixels = g.width() * g.height();
    return vk.dispatch(kernel, {from, to},
                       {static_cast<uint32_t>(pixels), static_cast<uint32_t>(g.c), static_cast<uint32_t>(g.h),
                        static_cast<uint32_t>(g.w)},
                       pixels, label, &timer_);
  }

  // Downloads copy the staging buffer out once the segment has run, into the host tensor
  // of this run's step (runDst_, set by onExecute; the planned `dst` until then).
  Status afterDownload(VulkanBackend& vk, Tensor* dst, const Tensor* device) {
    if (!download_) return Status::ok();
    runDst_ = dst;
    vk.afterSubmit([this, device] {
      if (!hostConvert_) {
        copyBytes(hostPool_, runDst_->data(), staging_->mapped, runDst_->byteSize());
        return;
      }
      Tensor tmp = Tensor::hostWrap(staging_->mapped, device->shape(), device->dtype(), hostLayout_);
      convertLayout(tmp, *runDst_);
    });
    return Status::ok();
  }

  bool upload_, download_;
  bool hostConvert_ = false;
  Layout hostLayout_ = Layout::kNCHW;
  VulkanBuffer* staging_ = nullptr;
  ThreadPool* hostPool_ = nullptr;  // the backend's host-copy threads (null: one thread)
  Tensor* runDst_ = nullptr;
  int timer_ = -1;
};

}  // namespace

std::unique_ptr<Execution> VulkanBackend::onCreateCopy(const Tensor* src, Tensor* dst) {
  return std::make_unique<VulkanTransfer>(this, src, dst);
}

}  // namespace tessera
