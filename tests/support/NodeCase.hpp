// Running one ONNX node-test case in the test process, as `tessera conformance` does
// (tools/cli/ConformanceCase.cpp), for tests that check what the conformance harness
// counts: a case is a GPU pass only when its nodes ran on that GPU.
#pragma once
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "tools/cli/ConformanceCase.hpp"

namespace tessera {
namespace test {

// The ONNX node-test folder scripts/setup.sh installs (TESSERA_ONNX_NODE_DATA overrides).
inline std::string onnxNodeCaseDir(const std::string& name) {
  const char* dir = std::getenv("TESSERA_ONNX_NODE_DATA");
  return std::string(dir ? dir : "/usr/share/libonnx-testdata/data/node") + "/" + name;
}

// The case on `backend`, with `provider`'s custom kernels first when it is not empty.
inline cli::CaseResult runOnnxNodeCase(const std::string& name, BackendType backend,
                                       const std::string& provider = "") {
  cli::CaseOptions options;
  options.session.backends = {backend};
  if (!provider.empty()) options.session.providers = {provider};
  return cli::runConformanceCase(onnxNodeCaseDir(name), options);
}

// Every node of the case ran on `backend`, none folded at planning.
inline void expectEveryNodeRanOn(const cli::CaseResult& r, BackendType backend, const std::string& what) {
  ASSERT_FALSE(r.nodes.empty()) << what << ": no node reported";
  for (const auto& n : r.nodes) {
    EXPECT_EQ(n.backend, backendTypeName(backend)) << what << ": " << n.op << " ran on " << n.backend;
    EXPECT_FALSE(n.folded) << what << ": " << n.op << " was folded at planning";
  }
}

}  // namespace test
}  // namespace tessera
