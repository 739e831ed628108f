// A traced run on disk (`tessera run --trace DIR`, `tessera diff --reference DIR`): one .npy
// per node output, trace.json describing them in execution order (node, op, backend, dtype,
// shape, min/max/mean, NaN/Inf counts, folded), and index.tsv (value name, tab, file name),
// which is all `--reference` reads, so any tool that writes .npy files and that index (such
// as tests/models/ort_trace.mjs for ONNX Runtime) can be the reference.
#pragma once
#include <string>
#include <vector>

#include "tessera/Status.hpp"
#include "tessera/Trace.hpp"

namespace tessera {
namespace cli {

// Names may hold '/', ':' and the like; file names may not ("" -> "output").
std::string safeFileName(const std::string& name);

// Writes the trace into `dir` (created if missing); `context` is a JSON object's members
// ("\"model\": ..., ") put first in trace.json.
Status writeTraceDir(const std::string& dir, const std::vector<TracedOutput>& trace, const std::string& context);

// Reads index.tsv and its .npy files: entries with `output` and `value` set.
Status readTraceDir(const std::string& dir, std::vector<TracedOutput>* out);

}  // namespace cli
}  // namespace tessera
