#include "tessera/ValueNeeds.hpp"

namespace tessera {
namespace {
thread_local std::vector<const Tensor*>* recording = nullptr;
}  // namespace

void noteValueNeeded(const Tensor* input) {
  if (recording && input) recording->push_back(input);
}

ValueNeedsRecorder::ValueNeedsRecorder(std::vector<const Tensor*>* into) : previous_(recording) { recording = into; }

ValueNeedsRecorder::~ValueNeedsRecorder() { recording = previous_; }

}  // namespace tessera
