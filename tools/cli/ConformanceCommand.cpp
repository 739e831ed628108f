// `tessera conformance`: finds the cases, runs each in its own child process (a crash or a
// hang fails that case only), prints one line per case and the totals, writes --json.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "tools/cli/Commands.hpp"
#include "tools/cli/ConformanceCase.hpp"
#include "tools/cli/Isolated.hpp"
#include "tools/cli/Json.hpp"

namespace tessera {
namespace cli {

const char* const kConformanceHelp =
    "usage: tessera conformance DIR... [--list FILE] [--backend cpu|opencl|vulkan|auto]\n"
    "                          [--precision fp32|fp16] [--rtol X] [--atol Y] [--json FILE]\n"
    "                          [--threads N] [--timeout SECONDS]\n"
    "\n"
    "Each DIR is an ONNX backend-test case (model.onnx, test_data_set_*/input_N.pb and\n"
    "output_N.pb) or a folder of such cases. With --list, only the cases named in FILE (one\n"
    "name a line, '#' starts a comment). Prints `PASS|FAIL|SKIP <case> [reason]` per case and\n"
    "`N passed, N failed, N skipped` (with --backend opencl|vulkan also how many of the\n"
    "passed ran every node on that backend, none folded); exits 1 when any case fails. A\n"
    "case is SKIP only when it needs an op no backend implements or an unsupported dtype.\n"
    "Each case runs in a child process: a crash or a case past --timeout (default 60 s) is a\n"
    "FAIL of that case. --json FILE writes every case with its errors and the backend that\n"
    "ran each node.\n"
    "Defaults: --backend cpu, --precision fp32, --threads 1, --rtol 1e-3 --atol 1e-5\n"
    "(with fp16: --rtol 1e-2 --atol 1e-3).\n";

namespace {

namespace fs = std::filesystem;

struct ConformanceOptions {
  std::vector<std::string> dirs;
  std::string listFile;
  std::string jsonFile;
  SessionChoice choice;
  double rtol = -1;  // negative: the default for the precision
  double atol = -1;
  int timeoutSeconds = 60;
};

ConformanceOptions parseConformanceOptions(ArgReader& args) {
  ConformanceOptions o;
  while (!args.done()) {
    std::string v;
    if (o.choice.parse(args)) continue;
    if (args.option("--list", &v)) {
      o.listFile = v;
    } else if (args.option("--json", &v)) {
      o.jsonFile = v;
    } else if (args.option("--rtol", &v)) {
      o.rtol = parseDouble("--rtol", v);
    } else if (args.option("--atol", &v)) {
      o.atol = parseDouble("--atol", v);
    } else if (args.option("--timeout", &v)) {
      o.timeoutSeconds = parseInt("--timeout", v, 1);
    } else if (args.peek().rfind("--", 0) == 0) {
      throw UsageError("unknown option '" + args.peek() + "'");
    } else {
      o.dirs.push_back(args.take());
    }
  }
  if (o.dirs.empty()) throw UsageError("no test directory given");
  return o;
}

bool isCase(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "model.onnx", ec);
}

// Case name -> directory, over all DIRs (a case dir itself, or a folder of case dirs).
std::map<std::string, fs::path> findCases(const std::vector<std::string>& dirs) {
  std::map<std::string, fs::path> cases;
  for (const std::string& d : dirs) {
    const fs::path dir(d);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw CommandError("'" + d + "' is not a directory");
    if (isCase(dir)) {
      cases[fs::absolute(dir).lexically_normal().filename().string()] = dir;
      continue;
    }
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (e.is_directory() && isCase(e.path())) cases[e.path().filename().string()] = e.path();
    }
    if (ec) throw CommandError("cannot list '" + d + "': " + ec.message());
  }
  return cases;
}

std::vector<std::string> readList(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw CommandError("cannot open the case list '" + file + "'");
  std::vector<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    const size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    const size_t e = line.find_last_not_of(" \t\r");
    names.push_back(line.substr(b, e - b + 1));
  }
  return names;
}

CaseResult runCaseIsolated(const fs::path& dir, const CaseOptions& options, int timeoutSeconds) {
  IsolatedResult run = runIsolated(
      [&] { return encodeCaseResult(runConformanceCase(dir.string(), options)); },
      timeoutSeconds);
  CaseResult r;
  if (run.kind == IsolatedResult::kFinished && decodeCaseResult(run.output, &r)) return r;
  r.status = "FAIL";
  r.reason = run.kind == IsolatedResult::kFinished ? "the case process returned no result"
                                                   : run.describe();
  return r;
}

void writeJson(const std::string& file, const std::vector<std::pair<std::string, CaseResult>>& all) {
  std::ofstream out(file, std::ios::trunc);
  if (!out) throw CommandError("cannot write '" + file + "'");
  out << "{\"cases\": [";
  for (size_t i = 0; i < all.size(); ++i) {
    const CaseResult& r = all[i].second;
    out << (i ? ",\n  " : "\n  ") << "{\"name\": " << jsonString(all[i].first)
        << ", \"status\": " << jsonString(r.status) << ", \"reason\": " << jsonString(r.reason)
        << ", \"max_abs_err\": " << jsonNumber(r.maxAbsErr)
        << ", \"max_rel_err\": " << jsonNumber(r.maxRelErr) << ", \"nodes\": [";
    for (size_t k = 0; k < r.nodes.size(); ++k) {
      out << (k ? ", " : "") << "{\"op\": " << jsonString(r.nodes[k].op)
          << ", \"backend\": " << jsonString(r.nodes[k].backend)
          << ", \"folded\": " << (r.nodes[k].folded ? "true" : "false") << "}";
    }
    out << "]}";
  }
  out << "\n]}\n";
  if (!out) throw CommandError("cannot write '" + file + "'");
}

}  // namespace

int conformanceCommand(ArgReader& args) {
  const ConformanceOptions o = parseConformanceOptions(args);
  const std::map<std::string, fs::path> found = findCases(o.dirs);

  // The cases to run, in order: the list's order, or by name.
  std::vector<std::pair<std::string, fs::path>> selected;
  std::vector<std::string> missing;
  if (!o.listFile.empty()) {
    std::set<std::string> seen;
    for (const std::string& name : readList(o.listFile)) {
      if (!seen.insert(name).second) continue;
      auto it = found.find(name);
      if (it == found.end()) missing.push_back(name);
      else selected.push_back(*it);
    }
  } else {
    selected.assign(found.begin(), found.end());
  }
  if (selected.empty() && missing.empty()) throw CommandError("no ONNX test cases found");

  CaseOptions options;
  options.session = o.choice.sessionOptions();
  const bool fp16 = o.choice.precision == Precision::kFP16;
  options.rtol = o.rtol >= 0 ? o.rtol : fp16 ? 1e-2 : 1e-3;
  options.atol = o.atol >= 0 ? o.atol : fp16 ? 1e-3 : 1e-5;
  if (fp16 && (o.rtol < 0 || o.atol < 0)) {
    std::fprintf(stderr, "tessera: fp16 tolerances: rtol %g, atol %g\n", options.rtol, options.atol);
  }

  std::vector<std::pair<std::string, CaseResult>> results;
  int passed = 0, failed = 0, skipped = 0;
  auto report = [&](const std::string& name, const CaseResult& r) {
    std::printf("%s %s%s%s\n", r.status.c_str(), name.c_str(), r.reason.empty() ? "" : " ",
                r.reason.c_str());
    std::fflush(stdout);
    if (r.status == "PASS") ++passed;
    else if (r.status == "SKIP") ++skipped;
    else ++failed;
    results.emplace_back(name, r);
  };
  for (const std::string& name : missing) {
    CaseResult r;
    r.reason = "no such case under the given directories";
    report(name, r);
  }
  for (const auto& c : selected) report(c.first, runCaseIsolated(c.second, options, o.timeoutSeconds));
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  if (o.choice.backend == "opencl" || o.choice.backend == "vulkan") {
    // The GPU count that counts: passed with every node run by the GPU backend, none folded
    // at planning (nor left to the CPU fallback).
    int wholly = 0;
    for (const auto& nr : results) {
      const CaseResult& r = nr.second;
      bool all = r.status == "PASS" && !r.nodes.empty();
      for (const auto& n : r.nodes) all = all && n.backend == o.choice.backend && !n.folded;
      wholly += all;
    }
    std::printf("%d of the %d passed ran every node on %s, none folded\n", wholly, passed, o.choice.backend.c_str());
  }
  std::fflush(stdout);
  if (!o.jsonFile.empty()) writeJson(o.jsonFile, results);
  return failed > 0 ? 1 : 0;
}

}  // namespace cli
}  // namespace tessera
