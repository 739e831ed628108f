// MatMul 1x384x384 by a constant 384x1536 (a transformer's MLP up-projection on 384 tokens),
// judged by %peak.
#include "KernelBench.hpp"

namespace tessera {
namespace bench {
namespace {

KernelCase matMul(const std::string& name, int64_t m, int64_t k, int64_t n) {
  KernelCase c;
  c.name = name;
  c.opType = "MatMul";
  c.input = {1, m, k};
  c.output = {1, m, n};
  c.constants = {{k, n}};
  c.flops = 2.0 * double(m) * double(k) * double(n);
  return c;
}

[[maybe_unused]] const bool registered = addKernel(matMul("MatMul/1x384x384/384x1536", 384, 384, 1536));

}  // namespace
}  // namespace bench
}  // namespace tessera
