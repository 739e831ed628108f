#include "ops/SqueezeExcite.hpp"

#include <algorithm>
#include <cstdlib>

namespace tessera {

int64_t SqueezeExciteParams::blocksPerGroup(int64_t channelBlocks, bool cpuDevice) {
  int64_t blocks = cpuDevice ? channelBlocks : 1;
  if (const char* forced = std::getenv("TESSERA_SQUEEZE_EXCITE_BLOCKS")) {
    const long long n = std::atoll(forced);
    if (n > 0) blocks = n;
  }
  return std::max<int64_t>(1, std::min(blocks, channelBlocks));
}

bool SqueezeExciteParams::gpuKernelTakes(const Tensors& in) {
  const Tensor* x = input(in, kX);
  const Tensor* w1 = input(in, kW1);
  if (!x || !w1 || !input(in, kW2) || x->rank() != 4) return false;
  for (Input i : {kX, kPooled, kW1, kB1, kW2, kB2}) {
    const Tensor* t = input(in, i);
    if (t && (t->dtype() != DataType::kF32 || (i >= kW1 && !t->data()))) return false;
  }
  const int64_t C = x->dim(1), C1 = w1->dim(0);
  return C >= 1 && C <= kMaxChannels && C1 >= 1 && C1 <= kMaxChannels;
}

std::vector<float> SqueezeExciteParams::gpuTable(const Tensor* w1, const Tensor* b1, const Tensor* w2,
                                                 const Tensor* b2) {
  const int64_t C1 = w1->dim(0), C = w1->dim(1);
  std::vector<float> table(2 * C * C1 + C1 + C, 0.f);
  const float* w1v = w1->data<float>();
  for (int64_t j = 0; j < C1; ++j)
    for (int64_t c = 0; c < C; ++c) table[c * C1 + j] = w1v[j * C + c];
  if (b1) std::copy(b1->data<float>(), b1->data<float>() + C1, table.begin() + C * C1);
  std::copy(w2->data<float>(), w2->data<float>() + C * C1, table.begin() + C * C1 + C1);
  if (b2) std::copy(b2->data<float>(), b2->data<float>() + C, table.begin() + 2 * C * C1 + C1);
  return table;
}

}  // namespace tessera
