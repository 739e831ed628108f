// Custom Vulkan kernels (tessera/VulkanKernel.hpp): GLSL compiled at run time by glslang,
// recorded into the session's command buffer like the built-in kernels.
#include "tessera/VulkanKernel.hpp"

#include <map>
#include <mutex>

#include "backends/vulkan/GlslCompiler.hpp"
#include "backends/vulkan/VulkanBackend.hpp"

namespace tessera {

VulkanBuildOptions& VulkanBuildOptions::define(const std::string& name, const std::string& value) {
  defines_.push_back(name + "=" + value);
  return *this;
}

VulkanBuildOptions& VulkanBuildOptions::define(const std::string& name, long long value) {
  return define(name, std::to_string(value));
}

VulkanDispatch& VulkanDispatch::tensor(const Tensor* t) {
  bindings_.push_back({t, nullptr});
  return *this;
}

VulkanDispatch& VulkanDispatch::buffer(const VulkanKernelBuffer* b) {
  bindings_.push_back({nullptr, b});
  return *this;
}

VulkanDispatch& VulkanDispatch::param(int32_t v) { return param(static_cast<uint32_t>(v)); }
VulkanDispatch& VulkanDispatch::param(uint32_t v) {
  params_.push_back(v);
  return *this;
}
VulkanDispatch& VulkanDispatch::param(float v) { return param(floatBits(v)); }

VulkanDispatch& VulkanDispatch::invocations(int64_t n) {
  invocations_ = n;
  return *this;
}

namespace {

VulkanBackend* asVulkan(Backend* b) {
  return b && b->type() == BackendType::kVulkan ? static_cast<VulkanBackend*>(b) : nullptr;
}

// SPIR-V by compiled text, so a new plan (or session) does not compile the same kernel again.
Status compileCached(const std::string& name, const std::string& source, const std::vector<std::string>& defines,
                     bool prelude, std::vector<uint32_t>* spirv) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<uint32_t>> cache;
  std::string key = (prelude ? "1" : "0") + source;
  for (const std::string& d : defines) key += "\n#" + d;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end()) {
      *spirv = it->second;
      return Status::ok();
    }
  }
  TESSERA_RETURN_IF_ERROR(vulkan::compileGlsl(name, source, defines, prelude, spirv));
  std::lock_guard<std::mutex> lock(mutex);
  cache[key] = *spirv;
  return Status::ok();
}

}  // namespace

struct VulkanCustomExecution::State {
  VulkanBackend* vk = nullptr;  // null when created on another backend (reported by onResize)
  std::string wrongBackend;
  bool images = false;  // NC4HW4 tensors are storage images (decided in selectLayouts)
  std::vector<std::unique_ptr<VulkanDispatch>> dispatches;
  std::vector<std::unique_ptr<VulkanKernelBuffer>> buffers;
  std::vector<int> timers;
};

VulkanCustomExecution::VulkanCustomExecution(Backend* backend) : CustomExecution(backend), s_(new State) {
  s_->vk = asVulkan(backend);
  if (!s_->vk) s_->wrongBackend = backend ? backendTypeName(backend->type()) : "no";
}

VulkanCustomExecution::~VulkanCustomExecution() = default;

// NC4HW4 as declared when every such tensor fits a storage image; otherwise all of them are
// NCHW buffers (the kernel is then compiled without IMAGE).
void VulkanCustomExecution::selectLayouts(const std::vector<Layout>& available, const Tensors& inputs,
                                          std::vector<Layout>* in, std::vector<Layout>* out) const {
  CustomExecution::selectLayouts(available, inputs, in, out);  // as declared
  Tensors images;
  for (size_t i = 0; i < in->size() && i < inputs.size(); ++i)
    if ((*in)[i] == Layout::kNC4HW4) images.push_back(inputs[i]);
  bool anyOut = false;
  for (Layout l : *out) anyOut = anyOut || l == Layout::kNC4HW4;
  s_->images = s_->vk && (!images.empty() || anyOut) && s_->vk->imagesFit(images);
  if (s_->images) return;
  for (auto* layouts : {in, out})
    for (Layout& l : *layouts)
      if (l == Layout::kNC4HW4) l = Layout::kNCHW;
}

Status VulkanCustomExecution::beginPlan(const Tensors&, const Tensors& outputs) {
  if (!s_->vk) return Status::invalid("custom Vulkan execution created on the " + s_->wrongBackend + " backend");
  for (const Tensor* t : outputs)  // outputs are known now: all images must fit, or none be used
    if (t && t->layout() == Layout::kNC4HW4 && !s_->vk->imagesFit({const_cast<Tensor*>(t)}))
      return Status::unsupported("output '" + t->name() + "' " + t->describe() +
                                 " does not fit a Vulkan storage image; declare it NCHW");
  s_->dispatches.clear();
  s_->timers.clear();
  return Status::ok();
}

// Records what onPlan added, in order.
Status VulkanCustomExecution::endPlan(const Tensors&, const Tensors&) {
  for (auto& d : s_->dispatches) {
    const std::string& name = d->pipeline_->name();
    if (d->invocations_ < 0)
      return Status::invalid("Vulkan kernel '" + name + "' has no invocation count (call invocations() in onPlan)");
    if (d->params_.size() > 32)
      return Status::invalid("Vulkan kernel '" + name + "' has " + std::to_string(d->params_.size()) +
                             " parameters (at most 32)");
    std::vector<VulkanBinding> bindings;
    for (const VulkanDispatch::Binding& b : d->bindings_) {
      if (b.tensor && b.tensor->backend() != s_->vk)
        return Status::invalid("Vulkan kernel '" + name + "': tensor '" + b.tensor->name() +
                               "' is not on the Vulkan device (a host constant input?)");
      if (b.tensor) {
        bindings.push_back(VulkanBackend::binding(b.tensor));
      } else {
        VulkanBinding vb;
        vb.buffer = static_cast<VkBuffer>(b.buffer->buffer_);
        bindings.push_back(vb);
      }
    }
    int timer = -1;
    TESSERA_RETURN_IF_ERROR(
        s_->vk->dispatch(d->pipeline_->spirv(), name, bindings, d->params_, d->invocations_, name, &timer));
    if (timer >= 0) s_->timers.push_back(timer);
  }
  return Status::ok();
}

Status VulkanCustomExecution::onExecute(const Tensors&, const Tensors&) { return Status::ok(); }  // recorded

bool VulkanCustomExecution::deviceTimeMs(double* ms) const {
  if (!s_->vk || s_->timers.empty()) return false;
  double sum = 0;
  for (int t : s_->timers) {
    const double v = s_->vk->timerMs(t);
    if (v < 0) return false;
    sum += v;
  }
  *ms = sum;
  return true;
}

Status VulkanCustomExecution::buildPipeline(const std::string& name, const std::string& source,
                                            const VulkanBuildOptions& options, VulkanPipeline* out, bool prelude) {
  if (!s_->vk) return Status::invalid("custom Vulkan execution created on the " + s_->wrongBackend + " backend");
  std::vector<std::string> defines = options.defines();
  if (s_->images) defines.push_back("IMAGE");
  if (s_->vk->fp16()) defines.push_back("FP16");
  out->name_ = name;
  return compileCached(name, source, defines, prelude, &out->spirv_);
}

Status VulkanCustomExecution::addDispatch(const VulkanPipeline& pipeline, VulkanDispatch** out) {
  if (pipeline.spirv().empty()) return Status::invalid("Vulkan kernel '" + pipeline.name() + "' was not built");
  s_->dispatches.push_back(std::unique_ptr<VulkanDispatch>(new VulkanDispatch));
  s_->dispatches.back()->pipeline_ = &pipeline;
  *out = s_->dispatches.back().get();
  return Status::ok();
}

Status VulkanCustomExecution::createBuffer(size_t bytes, const void* data, VulkanKernelBuffer** out) {
  if (!s_->vk) return Status::invalid("custom Vulkan execution created on the " + s_->wrongBackend + " backend");
  VulkanBinding b;
  TESSERA_RETURN_IF_ERROR(s_->vk->planUpload(data, bytes, &b).withContext("custom Vulkan buffer"));
  std::unique_ptr<VulkanKernelBuffer> kb(new VulkanKernelBuffer);
  kb->buffer_ = b.buffer;
  kb->bytes_ = bytes;
  s_->buffers.push_back(std::move(kb));
  *out = s_->buffers.back().get();
  return Status::ok();
}

bool VulkanCustomExecution::imageStorage() const { return s_->images; }
bool VulkanCustomExecution::fp16Storage() const { return s_->vk && s_->vk->fp16(); }

}  // namespace tessera
