#include "tools/cli/TraceFiles.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tools/cli/Json.hpp"
#include "tools/cli/Npy.hpp"

namespace tessera {
namespace cli {
namespace {

namespace fs = std::filesystem;

// min, max, mean over the finite values, and the NaN / Inf counts.
struct Summary {
  double min = NAN, max = NAN, mean = NAN;
  int64_t nan = 0, inf = 0;
};

Summary summarize(const Tensor& t) {
  Summary s;
  Tensor d = Tensor::hostAllocate(t.shape(), DataType::kF64);
  if (!convertDataType(t, d)) return s;
  double sum = 0;
  int64_t finite = 0;
  for (int64_t i = 0; i < d.elementCount(); ++i) {
    const double v = d.data<double>()[i];
    if (std::isnan(v)) { ++s.nan; continue; }
    if (std::isinf(v)) { ++s.inf; continue; }
    s.min = finite ? std::min(s.min, v) : v;
    s.max = finite ? std::max(s.max, v) : v;
    sum += v;
    ++finite;
  }
  if (finite) s.mean = sum / static_cast<double>(finite);
  return s;
}

std::string shapeJson(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

}  // namespace

std::string safeFileName(const std::string& name) {
  std::string s = name;
  for (char& c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_';
    if (!ok) c = '_';
  }
  if (s.empty() || s == "." || s == "..") s = "output" + s;
  return s;
}

Status writeTraceDir(const std::string& dir, const std::vector<TracedOutput>& trace, const std::string& context) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::invalid("cannot create trace directory '" + dir + "': " + ec.message());
  std::ostringstream json, index;
  json << "{" << context << "\"entries\": [\n";
  std::set<std::string> used;
  for (size_t i = 0; i < trace.size(); ++i) {
    const TracedOutput& t = trace[i];
    // <node>.<output>.npy, numbered when two names make the same file name.
    const std::string base = safeFileName(t.nodeName.empty() ? t.opType : t.nodeName) + "." + safeFileName(t.output);
    std::string file = base + ".npy";
    for (int n = 1; !used.insert(file).second; ++n) file = base + "_" + std::to_string(n) + ".npy";
    TESSERA_RETURN_IF_ERROR(writeNpy((fs::path(dir) / file).string(), t.value));
    const Summary s = summarize(t.value);
    json << "  {\"node\": " << jsonString(t.node) << ", \"op\": " << jsonString(t.opType)
         << ", \"backend\": " << jsonString(t.backend) << ", \"folded\": " << (t.folded ? "true" : "false")
         << ", \"output\": " << jsonString(t.output) << ", \"file\": " << jsonString(file)
         << ", \"dtype\": " << jsonString(dataTypeName(t.value.dtype())) << ", \"shape\": " << shapeJson(t.value.shape())
         << ", \"min\": " << jsonNumber(s.min) << ", \"max\": " << jsonNumber(s.max) << ", \"mean\": " << jsonNumber(s.mean)
         << ", \"nan\": " << s.nan << ", \"inf\": " << s.inf << "}" << (i + 1 < trace.size() ? "," : "") << "\n";
    if (t.output.find_first_of("\t\n") == std::string::npos) index << t.output << "\t" << file << "\n";
  }
  json << "]}\n";
  for (const auto& f : {std::make_pair(std::string("trace.json"), json.str()), std::make_pair(std::string("index.tsv"), index.str())}) {
    std::ofstream out(fs::path(dir) / f.first, std::ios::binary);
    out << f.second;
    if (!out) return Status::invalid("cannot write " + (fs::path(dir) / f.first).string());
  }
  return Status::ok();
}

Status readTraceDir(const std::string& dir, std::vector<TracedOutput>* out) {
  const fs::path indexPath = fs::path(dir) / "index.tsv";
  std::ifstream in(indexPath);
  if (!in) return Status::invalid("no " + indexPath.string() + ": a reference directory lists its tensors there "
                                  "(value name, tab, .npy file), as `tessera run --trace` writes it");
  out->clear();
  std::string line;
  for (int lineNo = 1; std::getline(in, line); ++lineNo) {
    if (line.empty()) continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos || tab == 0 || tab + 1 == line.size())
      return Status::invalid(indexPath.string() + ":" + std::to_string(lineNo) + ": expected 'value name<TAB>file.npy'");
    TracedOutput t;
    t.output = line.substr(0, tab);
    const std::string file = line.substr(tab + 1);
    if (file.find('/') != std::string::npos || file == "..")
      return Status::invalid(indexPath.string() + ":" + std::to_string(lineNo) + ": '" + file + "' is not a file name in " + dir);
    TESSERA_RETURN_IF_ERROR(readNpy((fs::path(dir) / file).string(), &t.value));
    out->push_back(std::move(t));
  }
  return Status::ok();
}

}  // namespace cli
}  // namespace tessera
