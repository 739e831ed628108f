// LSTM forward, hidden 128, input 64, 100 steps, batch 1 (a small speech or text encoder),
// with constant W, R and B, judged by %peak. FLOPs count the matrix work only:
// steps x 2 x 4*hidden x (input + hidden); the gate math is not counted.
#include "KernelBench.hpp"

namespace tessera {
namespace bench {
namespace {

KernelCase lstm(const std::string& name, int64_t steps, int64_t batch, int64_t input, int64_t hidden) {
  KernelCase c;
  c.name = name;
  c.opType = "LSTM";
  c.input = {steps, batch, input};
  c.output = {steps, 1, batch, hidden};
  c.constants = {{1, 4 * hidden, input}, {1, 4 * hidden, hidden}, {1, 8 * hidden}};
  c.attrs.setInt("hidden_size", hidden);
  c.flops = double(steps) * double(batch) * 2.0 * double(4 * hidden) * double(input + hidden);
  return c;
}

[[maybe_unused]] const bool registered = addKernel(lstm("LSTM/h128/in64/100steps/batch1", 100, 1, 64, 128));

}  // namespace
}  // namespace bench
}  // namespace tessera
