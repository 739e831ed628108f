// Custom kernels for the Vulkan backend, written in GLSL by your program and compiled at run
// time by glslang (linked into Tessera) into a pipeline on the session's device: no Tessera
// rebuild. Register them like any custom kernel (CustomOp.hpp) with
// backend = BackendType::kVulkan; the creator returns a subclass of VulkanCustomExecution.
// See docs/CUSTOM_KERNELS.md.
//
// Kernels follow the built-in ones' conventions (shaders/vulkan/common.glsl, the "prelude"
// compiled before your source): 64-wide work groups over a 1-D count of invocations,
// gid() the invocation index, 32 uint push parameters P[0..31] (pint(i), pfloat(i)), and
// tensors declared with TENSOR_IN/TENSOR_OUT (plain layouts) or NC4_IN/NC4_OUT (NC4HW4,
// with load_<name>() / store_<name>()). No Vulkan header is needed here.
// The implementation is part of the library only when it was built with Vulkan
// (TESSERA_WITH_VULKAN in tessera/BuildConfig.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/Backend.hpp"
#include "tessera/BuildConfig.hpp"
#include "tessera/CustomExecution.hpp"

namespace tessera {

// Preprocessor defines for a kernel (besides those Tessera sets: IMAGE when the execution's
// NC4HW4 tensors are storage images, FP16 when f32 tensors are stored as fp16).
class VulkanBuildOptions {
 public:
  VulkanBuildOptions& define(const std::string& name, const std::string& value = "1");
  VulkanBuildOptions& define(const std::string& name, long long value);
  const std::vector<std::string>& defines() const { return defines_; }

 private:
  std::vector<std::string> defines_;
};

// A compiled kernel: SPIR-V, made into a pipeline (cached per device) when first dispatched.
class VulkanPipeline {
 public:
  const std::string& name() const { return name_; }
  const std::vector<uint32_t>& spirv() const { return spirv_; }

 private:
  friend class VulkanCustomExecution;
  std::string name_;
  std::vector<uint32_t> spirv_;
};

// A device buffer an execution owns (weights uploaded by onPrepare, scratch).
class VulkanKernelBuffer {
 public:
  size_t bytes() const { return bytes_; }

 private:
  friend class VulkanCustomExecution;
  VulkanKernelBuffer() = default;
  void* buffer_ = nullptr;  // VkBuffer
  size_t bytes_ = 0;
};

// One dispatch of a pipeline: its bindings in binding order (binding i = the i-th call), its
// parameters P[0], P[1], ... in order, and its invocation count.
class VulkanDispatch {
 public:
  // An input or output tensor: its storage image (NC4HW4) or its buffer.
  VulkanDispatch& tensor(const Tensor* t);
  VulkanDispatch& buffer(const VulkanKernelBuffer* b);
  VulkanDispatch& param(int32_t v);
  VulkanDispatch& param(uint32_t v);
  VulkanDispatch& param(float v);
  // Invocations (gid() runs over [0, n)); groups of 64 are launched, so check the bound.
  VulkanDispatch& invocations(int64_t n);

 private:
  friend class VulkanCustomExecution;
  struct Binding {
    const Tensor* tensor = nullptr;
    const VulkanKernelBuffer* buffer = nullptr;
  };
  const VulkanPipeline* pipeline_ = nullptr;
  std::vector<Binding> bindings_;
  std::vector<uint32_t> params_;
  int64_t invocations_ = -1;
};

// The base of a custom Vulkan execution. Per plan, onPrepare (once) and onPlan run in
// onResize (tessera/CustomExecution.hpp); then this class records the dispatches onPlan
// added into the session's command buffer, in order, with barriers between them. A run only
// submits the recorded commands: nothing is compiled or allocated on that path.
class VulkanCustomExecution : public CustomExecution {
 public:
  // `backend` is the one the creator was given (a Vulkan backend).
  explicit VulkanCustomExecution(Backend* backend);
  ~VulkanCustomExecution() override;

  void selectLayouts(const std::vector<Layout>& available, const Tensors& inputs,
                     std::vector<Layout>* inputLayouts, std::vector<Layout>* outputLayouts) const override;
  Status onExecute(const Tensors& inputs, const Tensors& outputs) override;
  bool deviceTimeMs(double* ms) const override;

 protected:
  // Declared with setInputLayouts / setOutputLayouts / setHostConstantInputs and run through
  // onPrepare / onPlan (tessera/CustomExecution.hpp). Here kNCHW is a storage buffer and
  // kNC4HW4 a storage image — or, when an NC4HW4 tensor of the execution would pass the
  // device's image limits, all its NC4HW4 tensors are NCHW buffers read through the same
  // NC4_IN/NC4_OUT macros and the kernel is compiled without IMAGE. NC4HW4 tensors are f32;
  // their images are rgba16f under Precision::kFP16 (imageLoad/imageStore convert, the
  // source is the same).

  // Compiles GLSL compute `source` (after the prelude unless `prelude` is false) with the
  // defines of `options` plus IMAGE / FP16 as this execution's storage needs. A compile
  // error returns kInvalidArgument with glslang's log (line numbers of your source).
  Status buildPipeline(const std::string& name, const std::string& source, const VulkanBuildOptions& options,
                       VulkanPipeline* out, bool prelude = true);
  // A dispatch of `pipeline`, recorded after those added before it.
  Status addDispatch(const VulkanPipeline& pipeline, VulkanDispatch** out);
  // A device buffer of `bytes`, filled from `data` when not null (planning time only).
  Status createBuffer(size_t bytes, const void* data, VulkanKernelBuffer** out);
  // Whether this execution's NC4HW4 tensors are storage images (IMAGE defined), else
  // NCHW buffers.
  bool imageStorage() const;
  // Whether f32 tensors are stored as fp16 (FP16 defined).
  bool fp16Storage() const;

 private:
  Status beginPlan(const Tensors& inputs, const Tensors& outputs) override;
  Status endPlan(const Tensors& inputs, const Tensors& outputs) override;
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace tessera
