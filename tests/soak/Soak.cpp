// Soak: runs the PaddleOCR direction classifier many times on each backend present, and
// creates and destroys many Sessions per backend, then checks that resident memory and open
// file descriptors stayed flat. Every run's output must equal the first run's.
//
//   tessera_soak MODEL [--cpu-runs N] [--gpu-runs N] [--sessions N]
//
// The baseline is taken after a warm-up (the first 10% of the runs, at least 20, and 5
// session cycles), when drivers have compiled their kernels and caches are full. Allowed
// slack: resident memory may grow by 8 MiB + 2% of the baseline (allocator and driver
// pools), open descriptors by 0. Prints the figures; exits 1 on any excess or wrong output.
#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/OnnxImporter.hpp"
#include "tessera/Tessera.hpp"

using namespace tessera;

namespace {

long residentKiB() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int openFds() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n - 1;  // the directory stream itself
}

struct Figures {
  long rssKiB;
  int fds;
};

Figures now() { return {residentKiB(), openFds()}; }

bool sameBits(const Tensor& a, const Tensor& b) {
  return a.byteSize() == b.byteSize() && std::memcmp(a.data(), b.data(), a.byteSize()) == 0;
}

bool flat(const char* what, const Figures& base, const Figures& end) {
  const long slackKiB = 8 * 1024 + base.rssKiB / 50;
  const bool ok = end.rssKiB - base.rssKiB <= slackKiB && end.fds <= base.fds;
  std::printf("%s %s: resident %ld -> %ld KiB (%+ld, allowed +%ld), open fds %d -> %d\n", ok ? "PASS" : "FAIL", what,
              base.rssKiB, end.rssKiB, end.rssKiB - base.rssKiB, slackKiB, base.fds, end.fds);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tessera_soak MODEL [--cpu-runs N] [--gpu-runs N] [--sessions N]\n");
    return 2;
  }
  const std::string model = argv[1];
  long cpuRuns = 20000, gpuRuns = 2000, sessions = 200;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long v = std::atol(argv[i + 1]);
    if (flag == "--cpu-runs") cpuRuns = v;
    else if (flag == "--gpu-runs") gpuRuns = v;
    else if (flag == "--sessions") sessions = v;
    else { std::fprintf(stderr, "unknown option %s\n", argv[i]); return 2; }
  }
  std::shared_ptr<Graph> graph;
  Status st = loadOnnxModel(model, &graph);
  if (!st.isOk()) {
    if (st.code() == StatusCode::kNotFound) {
      std::printf("SKIP: %s\n", st.message().c_str());
      return 77;
    }
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  Tensor x = Tensor::hostAllocate({1, 3, 48, 192}, DataType::kF32);
  for (int64_t i = 0; i < x.elementCount(); ++i) x.data<float>()[i] = static_cast<float>((i * 7919) % 255) / 127.5f - 1.f;

  bool ok = true;
  for (BackendType backend : {BackendType::kCPU, BackendType::kVulkan, BackendType::kOpenCL}) {
    const char* name = backendTypeName(backend);
    SessionOptions o;
    o.backends = {backend};
    o.threads = 2;
    std::unique_ptr<Session> s;
    if (!Session::create(graph, o, &s).isOk()) {
      std::printf("SKIP %s: backend unavailable\n", name);
      continue;
    }
    // Runs on one Session.
    const long runs = backend == BackendType::kCPU ? cpuRuns : gpuRuns;
    const long warmup = std::max(20L, runs / 10);
    std::map<std::string, Tensor> first, out;
    Figures base{};
    long wrong = 0;
    for (long i = 0; i < runs; ++i) {
      if (i == warmup) base = now();
      if (!s->run({{"x", x}}, &out).isOk()) { ++wrong; continue; }
      if (i == 0) first = out;
      else if (!sameBits(out.begin()->second, first.begin()->second)) ++wrong;
    }
    char what[128];
    std::snprintf(what, sizeof what, "%s, %ld runs (%ld wrong)", name, runs, wrong);
    ok = flat(what, base, now()) && wrong == 0 && ok;
    s.reset();

    // Session create / plan / run / destroy cycles.
    for (long i = 0; i < sessions + 5; ++i) {
      if (i == 5) base = now();
      std::unique_ptr<Session> t;
      if (!Session::create(graph, o, &t).isOk() || !t->run({{"x", x}}, &out).isOk() ||
          !sameBits(out.begin()->second, first.begin()->second))
        ++wrong;
    }
    std::snprintf(what, sizeof what, "%s, %ld session cycles (%ld wrong)", name, sessions, wrong);
    ok = flat(what, base, now()) && wrong == 0 && ok;
  }
  return ok ? 0 : 1;
}
