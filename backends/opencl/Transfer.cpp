// Copies between host tensors and OpenCL tensors, and layout conversions between two OpenCL
// tensors. The NCHW <-> NC4HW4 conversion runs on the device (a kernel and a staging buffer
// prepared at planning time); host layouts other than NCHW convert on the host.
#include <cstring>

#include "backends/opencl/OpenClBackend.hpp"
#include "backends/opencl/OpenClExecution.hpp"
#include "kernels/convert.hpp"

namespace tessera {
namespace {

class OpenClCopy final : public OpenClExecution {
 public:
  using OpenClExecution::OpenClExecution;

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor* src = inputs[0];
    Tensor* dst = outputs[0];
    clearKernels();
    upload_ = !cl()->owns(src) && cl()->owns(dst);
    download_ = cl()->owns(src) && !cl()->owns(dst);
    if (src->shape() != dst->shape() || src->dtype() != dst->dtype())
      return Status::unsupported("OpenCL copy: " + src->describe() + " -> " + dst->describe() +
                                 " changes shape or dtype");
    const bool srcNc4 = isNc4(src), dstNc4 = isNc4(dst);
    if ((srcNc4 && cl()->owns(src)) || (dstNc4 && cl()->owns(dst))) {
      if (src->dtype() != DataType::kF32)
        return Status::unsupported("OpenCL copy: NC4HW4 on the device needs f32, not " + src->describe());
    }
    const size_t plainBytes = static_cast<size_t>(src->elementCount()) * dataTypeSize(src->dtype());
    bytes_ = plainBytes;
    const Nc4Geometry g = nc4Geometry(src->shape());
    if (upload_) {
      hostStaging_ = src->layout() != Layout::kNCHW;
      if (hostStaging_) staging_ = Tensor::hostAllocate(src->shape(), src->dtype());
      if (dstNc4) {
        TESSERA_RETURN_IF_ERROR(cl()->createBuffer(plainBytes, nullptr, &deviceStaging_, "upload staging"));
        TESSERA_RETURN_IF_ERROR(toNc4(deviceStaging_.get(), dst, g));
        target_ = deviceStaging_.get();
      } else {
        target_ = OpenClBackend::storage(dst)->mem;
      }
      return Status::ok();
    }
    if (download_) {
      hostStaging_ = dst->layout() != Layout::kNCHW;
      if (hostStaging_) staging_ = Tensor::hostAllocate(src->shape(), src->dtype());
      if (srcNc4) {
        TESSERA_RETURN_IF_ERROR(cl()->createBuffer(plainBytes, nullptr, &deviceStaging_, "download staging"));
        TESSERA_RETURN_IF_ERROR(fromNc4(src, deviceStaging_.get(), g));
        target_ = deviceStaging_.get();
      } else {
        target_ = OpenClBackend::storage(src)->mem;
      }
      return Status::ok();
    }
    // Both on the device.
    if (!srcNc4 && dstNc4) return toNc4(OpenClBackend::storage(src)->mem, dst, g);
    if (srcNc4 && !dstNc4) return fromNc4(src, OpenClBackend::storage(dst)->mem, g);
    if (!srcNc4 && !dstNc4) {
      deviceCopy_ = true;
      return Status::ok();
    }
    return Status::unsupported("OpenCL copy: " + src->describe() + " -> " + dst->describe());
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor* src = inputs[0];
    Tensor* dst = outputs[0];
    cl_command_queue q = cl()->queue();
    if (upload_) {
      if (!src->data()) return Status::internal("OpenCL upload: " + src->describe() + " has no host data");
      const void* p = src->data();
      if (hostStaging_) {
        convertLayout(*src, staging_);
        p = staging_.data();
      }
      if (bytes_) {
        // Blocking: `src` may be the caller's own input (Session reads graph inputs that only
        // uploads use in place), which must not be read after a failed run has returned.
        const cl_int err = clEnqueueWriteBuffer(q, target_, CL_TRUE, 0, bytes_, p, 0, nullptr, nullptr);
        if (err != CL_SUCCESS) return Status::internal("OpenCL upload of " + src->describe() + ": " + opencl::errorName(err));
      }
      return OpenClExecution::onExecute(inputs, outputs);
    }
    if (download_) {
      TESSERA_RETURN_IF_ERROR(OpenClExecution::onExecute(inputs, outputs));
      if (!dst->data()) return Status::internal("OpenCL download: " + dst->describe() + " has no host memory");
      void* p = hostStaging_ ? staging_.data() : dst->data();
      if (bytes_) {
        const cl_int err = clEnqueueReadBuffer(q, target_, CL_TRUE, 0, bytes_, p, 0, nullptr, nullptr);
        if (err != CL_SUCCESS) return Status::internal("OpenCL download of " + src->describe() + ": " + opencl::errorName(err));
      }
      if (hostStaging_) convertLayout(staging_, *dst);
      return Status::ok();
    }
    if (deviceCopy_ && bytes_) {
      const cl_int err = clEnqueueCopyBuffer(q, OpenClBackend::storage(src)->mem, OpenClBackend::storage(dst)->mem,
                                             0, 0, bytes_, 0, nullptr, nullptr);
      if (err != CL_SUCCESS) return Status::internal("OpenCL copy of " + src->describe() + ": " + opencl::errorName(err));
      return Status::ok();
    }
    return OpenClExecution::onExecute(inputs, outputs);
  }

 private:
  Status toNc4(cl_mem plain, const Tensor* dst, const Nc4Geometry& g) {
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::convert::nchw_to_nc4hw4,
                                      KernelOptions().storage("dst", dst), &k));
    k->mem(plain).tensor(dst).arg(g.c).arg(g.h).arg(g.w).arg(g.width()).arg(g.height());
    return dispatchNc4(k, g);
  }
  Status fromNc4(const Tensor* src, cl_mem plain, const Nc4Geometry& g) {
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::convert::nc4hw4_to_nchw,
                                      KernelOptions().storage("src", src), &k));
    k->tensor(src).mem(plain).arg(g.c).arg(g.h).arg(g.w).arg(g.width()).arg(g.height());
    return dispatchNc4(k, g);
  }

  bool upload_ = false, download_ = false, deviceCopy_ = false, hostStaging_ = false;
  size_t bytes_ = 0;
  Tensor staging_;
  ClBuffer deviceStaging_;
  cl_mem target_ = nullptr;
};

}  // namespace

std::unique_ptr<Execution> OpenClBackend::onCreateCopy(const Tensor*, Tensor*) {
  return std::make_unique<OpenClCopy>(this);
}

Status OpenClBackend::onCopyBuffer(const Tensor* src, Tensor* dst) {
  OpenClCopy copy(this);
  Tensors in{const_cast<Tensor*>(src)}, out{dst};
  TESSERA_RETURN_IF_ERROR(copy.onResize(in, out));
  TESSERA_RETURN_IF_ERROR(copy.onExecute(in, out));
  const cl_int err = clFinish(queue());
  if (err != CL_SUCCESS) return Status::internal("OpenCL copy: " + opencl::errorName(err));
  return Status::ok();
}

}  // namespace tessera
