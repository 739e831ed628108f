// Judging a case: SKIP only when something is unsupported (an op no backend implements, a
// string tensor), with the reason; any other failure, or a wrong answer, is FAIL.
#include "tools/cli/ConformanceCase.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "tessera/OnnxImporter.hpp"
#include "tools/cli/TensorCompare.hpp"

namespace tessera {
namespace cli {
namespace {

namespace fs = std::filesystem;

void judgeFailure(const Status& s, const std::string& context, CaseResult* r) {
  r->status = s.code() == StatusCode::kUnsupported ? "SKIP" : "FAIL";
  r->reason = context.empty() ? s.message() : context + ": " + s.message();
}

std::vector<fs::path> dataSets(const fs::path& dir) {
  std::vector<fs::path> sets;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(e.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  return sets;
}

// prefix_0.pb, prefix_1.pb, ... up to the first missing number.
Status loadNumbered(const fs::path& set, const std::string& prefix, std::vector<Tensor>* out) {
  for (int i = 0;; ++i) {
    const fs::path p = set / (prefix + "_" + std::to_string(i) + ".pb");
    std::error_code ec;
    if (!fs::exists(p, ec)) return Status::ok();
    Tensor t;
    TESSERA_RETURN_IF_ERROR(loadOnnxTensor(p.string(), &t));
    out->push_back(std::move(t));
  }
}

// NumPy has no bfloat16, so the ONNX test data stores bf16 values as uint16 bit patterns;
// the graph's declared type says which they are.
void adoptBFloat16(const ValueInfo& declared, Tensor* t) {
  if (declared.dtype == DataType::kBF16 && t->dtype() == DataType::kU16) {
    t->setDataType(DataType::kBF16);
  }
}

void recordPlacement(const Session& session, CaseResult* r) {
  r->nodes.clear();
  for (const auto& n : session.report().nodes) {
    // Nodes folded at resize time ran on the host, i.e. the CPU.
    r->nodes.push_back({n.opType, n.folded ? "cpu" : backendTypeName(n.backend), n.folded});
  }
}

// Runs one data set; false with r filled in when the case is decided (FAIL/SKIP).
bool runDataSet(Session& session, const Graph& g, const fs::path& set, const CaseOptions& o,
                CaseResult* r) {
  const std::string setName = set.filename().string();
  std::vector<Tensor> inputs, expected;
  Status s = loadNumbered(set, "input", &inputs);
  if (s.isOk()) s = loadNumbered(set, "output", &expected);
  if (!s.isOk()) {
    judgeFailure(s, setName, r);
    return false;
  }
  if (inputs.size() != g.inputs.size() || expected.size() != g.outputs.size()) {
    r->reason = setName + " holds " + std::to_string(inputs.size()) + " inputs and " +
                std::to_string(expected.size()) + " outputs but the graph has " +
                std::to_string(g.inputs.size()) + " and " + std::to_string(g.outputs.size());
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) adoptBFloat16(g.inputs[i], &inputs[i]);
  for (size_t i = 0; i < expected.size(); ++i) adoptBFloat16(g.outputs[i], &expected[i]);
  std::map<std::string, Tensor> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) feeds[g.inputs[i].name] = inputs[i];
  std::map<std::string, Tensor> outputs;
  s = session.run(feeds, &outputs);
  if (!s.isOk()) {
    judgeFailure(s, "", r);
    return false;
  }
  recordPlacement(session, r);
  for (size_t i = 0; i < expected.size(); ++i) {
    const std::string& name = g.outputs[i].name;
    auto it = outputs.find(name);
    if (it == outputs.end()) {
      r->reason = "the session produced no output '" + name + "'";
      return false;
    }
    const Comparison c = compareTensors(it->second, expected[i], o.rtol, o.atol);
    r->maxAbsErr = std::isnan(r->maxAbsErr) ? c.maxAbsErr : std::max(r->maxAbsErr, c.maxAbsErr);
    r->maxRelErr = std::isnan(r->maxRelErr) ? c.maxRelErr : std::max(r->maxRelErr, c.maxRelErr);
    if (!c.ok) {
      r->reason = "output '" + name + "' (" + setName + "): " + c.mismatch;
      return false;
    }
  }
  return true;
}

}  // namespace

CaseResult runConformanceCase(const std::string& caseDir, const CaseOptions& o) {
  CaseResult r;
  std::shared_ptr<Graph> graph;
  Status s = loadOnnxModel((fs::path(caseDir) / "model.onnx").string(), &graph);
  if (!s.isOk()) {
    judgeFailure(s, "", &r);
    return r;
  }
  for (const Node& n : graph->nodes) r.nodes.push_back({n.opType, "none", false});
  const std::vector<fs::path> sets = dataSets(caseDir);
  if (sets.empty()) {
    r.reason = "no test_data_set_* folder";
    return r;
  }
  std::unique_ptr<Session> session;
  s = Session::create(graph, o.session, &session);
  if (!s.isOk()) {
    judgeFailure(s, "", &r);
    return r;
  }
  for (const fs::path& set : sets) {
    if (!runDataSet(*session, *graph, set, o, &r)) return r;
  }
  r.status = "PASS";
  return r;
}

// Format: status, reason, max_abs_err, max_rel_err, then one "op<TAB>backend<TAB>folded"
// per node.
// Newlines inside the reason are flattened; names never contain tabs or newlines.
std::string encodeCaseResult(const CaseResult& r) {
  std::string reason = r.reason;
  std::replace(reason.begin(), reason.end(), '\n', ' ');
  std::ostringstream out;
  out.precision(17);
  out << r.status << '\n' << reason << '\n' << r.maxAbsErr << '\n' << r.maxRelErr << '\n';
  for (const auto& n : r.nodes) out << n.op << '\t' << n.backend << '\t' << (n.folded ? 1 : 0) << '\n';
  return out.str();
}

bool decodeCaseResult(const std::string& text, CaseResult* r) {
  std::istringstream in(text);
  std::string absErr, relErr;
  if (!std::getline(in, r->status) || !std::getline(in, r->reason) ||
      !std::getline(in, absErr) || !std::getline(in, relErr)) {
    return false;
  }
  if (r->status != "PASS" && r->status != "FAIL" && r->status != "SKIP") return false;
  r->maxAbsErr = std::strtod(absErr.c_str(), nullptr);
  r->maxRelErr = std::strtod(relErr.c_str(), nullptr);
  r->nodes.clear();
  std::string line;
  while (std::getline(in, line)) {
    const size_t tab = line.find('\t');
    const size_t tab2 = tab == std::string::npos ? tab : line.find('\t', tab + 1);
    if (tab2 == std::string::npos) return false;
    r->nodes.push_back({line.substr(0, tab), line.substr(tab + 1, tab2 - tab - 1), line.substr(tab2 + 1) == "1"});
  }
  return true;
}

}  // namespace cli
}  // namespace tessera
