// libFuzzer target: model bytes -> loadOnnxModelFromBytes -> Session on the CPU -> resize
// with every input's free or large dims clamped to a small size -> run on zeros. Any crash,
// leak, hang or sanitizer report is a bug; errors are fine.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "tessera/OnnxImporter.hpp"
#include "tessera/Session.hpp"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::shared_ptr<Graph> graph;
  if (!loadOnnxModelFromBytes(data, size, &graph).isOk()) return 0;
  SessionOptions o;
  o.threads = 1;
  o.maxTensorElements = int64_t(1) << 20;  // keeps each run fast and small
  o.maxMemoryBytes = uint64_t(256) << 20;
  std::unique_ptr<Session> session;
  if (!Session::create(graph, o, &session).isOk()) return 0;
  std::map<std::string, Shape> shapes;
  std::map<std::string, Tensor> inputs;
  for (const ValueInfo& in : graph->inputs) {
    if (graph->initializers.count(in.name)) continue;
    Shape s = in.hasShape ? in.dims : Shape{1};
    for (int64_t& d : s) d = d < 0 ? 2 : std::min<int64_t>(d, 8);
    int64_t count = 0;
    if (in.dtype == DataType::kUnknown || in.dtype == DataType::kString || !checkedElementCount(s, &count) ||
        count > o.maxTensorElements)
      return 0;
    shapes[in.name] = s;
    inputs[in.name] = Tensor::hostAllocate(s, in.dtype);  // zeros
  }
  if (!session->resize(shapes).isOk()) return 0;
  std::map<std::string, Tensor> outputs;
  session->run(inputs, &outputs);
  return 0;
}
