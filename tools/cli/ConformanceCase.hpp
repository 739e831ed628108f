// One ONNX backend-test case (model.onnx + test_data_set_*/{input,output}_N.pb), run and
// judged in the calling process. `tessera conformance` calls it inside a forked child.
#pragma once
#include <limits>
#include <string>
#include <vector>

#include "tessera/Session.hpp"

namespace tessera {
namespace cli {

struct CaseOptions {
  SessionOptions session;
  double rtol = 1e-3;
  double atol = 1e-5;
};

struct CaseResult {
  std::string status = "FAIL";  // PASS | FAIL | SKIP
  std::string reason;
  // NaN until outputs were compared.
  double maxAbsErr = std::numeric_limits<double>::quiet_NaN();
  double maxRelErr = std::numeric_limits<double>::quiet_NaN();
  struct NodeRun {
    std::string op;
    std::string backend;  // cpu | opencl | vulkan, or "none" when it never ran
    bool folded = false;  // evaluated once while planning (constant inputs), on the CPU
  };
  std::vector<NodeRun> nodes;
};

CaseResult runConformanceCase(const std::string& caseDir, const CaseOptions& options);

// One-line-per-field text for the pipe from the child; decode returns false on garbage.
std::string encodeCaseResult(const CaseResult& r);
bool decodeCaseResult(const std::string& text, CaseResult* r);

}  // namespace cli
}  // namespace tessera
