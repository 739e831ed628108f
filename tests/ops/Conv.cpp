// Conv and ConvTranspose against naive references: channels that are not multiples of 4,
// odd spatial sizes, batch 1 and 3, groups (depthwise included), strides, dilations, pads,
// auto_pad, 1-D / 2-D / 3-D, and weights both as graph inputs and as constants (pre-packed).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support/ConvSumCases.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

struct Window {
  std::vector<int64_t> kernel, stride, dilation, padBegin, padEnd;
};

// Spatial extents padded with leading 1s to 3 dimensions.
std::vector<int64_t> spatial3(const Shape& s) {
  std::vector<int64_t> v(s.begin() + 2, s.end());
  while (v.size() < 3) v.insert(v.begin(), 1);
  return v;
}

Window window3(Window w) {
  while (w.kernel.size() < 3) {
    w.kernel.insert(w.kernel.begin(), 1);
    w.stride.insert(w.stride.begin(), 1);
    w.dilation.insert(w.dilation.begin(), 1);
    w.padBegin.insert(w.padBegin.begin(), 0);
    w.padEnd.insert(w.padEnd.begin(), 0);
  }
  return w;
}

Tensor convReference(const Tensor& x, const Tensor& w, const Tensor* b, const Window& win, int64_t group) {
  const int64_t N = x.dim(0), C = x.dim(1), M = w.dim(0), Cg = C / group, Mg = M / group;
  const std::vector<int64_t> in = spatial3(x.shape());
  const Window g = window3(win);
  std::vector<int64_t> out(3);
  for (int d = 0; d < 3; ++d)
    out[d] = (in[d] + g.padBegin[d] + g.padEnd[d] - ((g.kernel[d] - 1) * g.dilation[d] + 1)) / g.stride[d] + 1;
  Shape ys = {N, M};
  for (size_t d = 3 - (x.rank() - 2); d < 3; ++d) ys.push_back(out[d]);
  Tensor y = Tensor::hostAllocate(ys, DataType::kF32);
  const float* xd = x.data<float>();
  const float* wd = w.data<float>();
  float* yd = y.data<float>();
  const int64_t inCount = in[0] * in[1] * in[2], kCount = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const int64_t outCount = out[0] * out[1] * out[2];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t p = 0; p < outCount; ++p) {
        const int64_t ow = p % out[2], oh = (p / out[2]) % out[1], od = p / (out[2] * out[1]);
        double acc = b ? b->data<float>()[m] : 0.0;
        const int64_t grp = m / Mg;
        for (int64_t c = 0; c < Cg; ++c)
          for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
            for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
              for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                const int64_t id = od * g.stride[0] - g.padBegin[0] + kd * g.dilation[0];
                const int64_t ih = oh * g.stride[1] - g.padBegin[1] + kh * g.dilation[1];
                const int64_t iw = ow * g.stride[2] - g.padBegin[2] + kw * g.dilation[2];
                if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] || iw < 0 || iw >= in[2]) continue;
                const float xv = xd[(n * C + grp * Cg + c) * inCount + (id * in[1] + ih) * in[2] + iw];
                const float wv = wd[(m * Cg + c) * kCount + (kd * g.kernel[1] + kh) * g.kernel[2] + kw];
                acc += double(xv) * wv;
              }
        yd[(n * M + m) * outCount + p] = static_cast<float>(acc);
      }
  return y;
}

// y spatial extents are given (they depend on output_padding / output_shape).
Tensor convTransposeReference(const Tensor& x, const Tensor& w, const Tensor* b, const Window& win, int64_t group,
                              const Shape& yShape) {
  const int64_t N = x.dim(0), C = x.dim(1), Mg = w.dim(1), M = Mg * group, Cg = C / group;
  const std::vector<int64_t> in = spatial3(x.shape()), out = spatial3(yShape);
  const Window g = window3(win);
  Tensor y = Tensor::hostAllocate(yShape, DataType::kF32);
  const int64_t inCount = in[0] * in[1] * in[2], outCount = out[0] * out[1] * out[2];
  const int64_t kCount = g.kernel[0] * g.kernel[1] * g.kernel[2];
  std::vector<double> acc(y.elementCount(), 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t p = 0; p < inCount; ++p) {
        const int64_t iw = p % in[2], ih = (p / in[2]) % in[1], id = p / (in[2] * in[1]);
        const double xv = x.data<float>()[(n * C + c) * inCount + p];
        const int64_t grp = c / Cg;
        for (int64_t m = 0; m < Mg; ++m)
          for (int64_t k = 0; k < kCount; ++k) {
            const int64_t kw = k % g.kernel[2], kh = (k / g.kernel[2]) % g.kernel[1], kd = k / (g.kernel[2] * g.kernel[1]);
            const int64_t od = id * g.stride[0] - g.padBegin[0] + kd * g.dilation[0];
            const int64_t oh = ih * g.stride[1] - g.padBegin[1] + kh * g.dilation[1];
            const int64_t ow = iw * g.stride[2] - g.padBegin[2] + kw * g.dilation[2];
            if (od < 0 || od >= out[0] || oh < 0 || oh >= out[1] || ow < 0 || ow >= out[2]) continue;
            acc[(n * M + grp * Mg + m) * outCount + (od * out[1] + oh) * out[2] + ow] +=
                xv * w.data<float>()[(c * Mg + m) * kCount + k];
          }
      }
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t q = 0; q < outCount; ++q) {
        const int64_t i = (n * M + m) * outCount + q;
        y.data<float>()[i] = static_cast<float>(acc[i] + (b ? b->data<float>()[m] : 0.0));
      }
  return y;
}

Attributes windowAttributes(const Window& w, int64_t group) {
  Attributes a;
  a.setInts("kernel_shape", w.kernel);
  a.setInts("strides", w.stride);
  a.setInts("dilations", w.dilation);
  std::vector<int64_t> pads = w.padBegin;
  pads.insert(pads.end(), w.padEnd.begin(), w.padEnd.end());
  a.setInts("pads", pads);
  a.setInt("group", group);
  return a;
}

struct ConvCase {
  Shape x;
  int64_t outChannels;
  int64_t group;
  Window window;
  bool bias;
};

void runConvCase(const ConvCase& c, uint32_t seed) {
  Shape ws = {c.outChannels, c.x[1] / c.group};
  ws.insert(ws.end(), c.window.kernel.begin(), c.window.kernel.end());
  const Tensor x = randomTensor(c.x, seed);
  const Tensor w = randomTensor(ws, seed + 1);
  const Tensor b = randomTensor({c.outChannels}, seed + 2);
  const Tensor expected = convReference(x, w, c.bias ? &b : nullptr, c.window, c.group);
  std::vector<Tensor> inputs = {x, w};
  if (c.bias) inputs.push_back(b);
  for (BackendType backend : availableBackends()) {
    for (bool constantWeights : {false, true}) {
      OpRun r = runOp("Conv", inputs, windowAttributes(c.window, c.group), 1, backend, {false, constantWeights, constantWeights});
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectClose(r.outputs[0], expected, 1e-4, 1e-4,
                  std::string(backendTypeName(backend)) + " Conv x " + shapeToString(c.x) + " w " + shapeToString(ws) +
                      " group " + std::to_string(c.group) + (constantWeights ? " constant W" : ""));
    }
  }
}

TEST(ConvOp, Conv2DSweep) {
  const Window k3 = {{3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
  const Window k1 = {{1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}};
  const Window strided = {{3, 2}, {2, 3}, {1, 1}, {1, 0}, {2, 1}};
  const Window dilated = {{3, 3}, {1, 2}, {2, 1}, {2, 0}, {1, 2}};
  uint32_t seed = 1;
  for (int64_t c : {1, 3, 4, 5, 8, 13})
    for (const Window& w : {k3, k1, strided, dilated}) runConvCase({{1, c, 7, 9}, 5, 1, w, true}, seed++);
  runConvCase({{3, 5, 11, 6}, 13, 1, k3, false}, seed++);
  // Too few rows for the threads: tasks split the output channels too (ColumnSplit.hpp), on
  // im2col (25 positions in tasks of 12, 12 and 1 rows; 64 channels as 32 + 32) and read in
  // place (a 7x7 plane, 1x1: 24, 24 and 1 rows; 64 channels as 32 + 32).
  runConvCase({{1, 8, 5, 5}, 64, 1, k3, true}, seed++);
  runConvCase({{1, 32, 7, 7}, 64, 1, k1, true}, seed++);
  // Whole channel blocks per group (the CPU copies window rows of KW pixels): dilation along
  // H only, and groups of two blocks.
  runConvCase({{1, 8, 9, 10}, 6, 1, {{3, 3}, {1, 1}, {2, 1}, {2, 1}, {2, 1}}, true}, seed++);
  runConvCase({{2, 16, 7, 8}, 10, 2, {{3, 2}, {2, 1}, {1, 1}, {1, 0}, {1, 1}}, true}, seed++);
  runConvCase({{2, 20, 9, 9}, 37, 1, k3, true}, seed++);  // K > one GEMM chunk of rows
  runConvCase({{1, 6, 5, 7}, 9, 3, k3, true}, seed++);    // grouped
  runConvCase({{2, 8, 6, 5}, 4, 2, strided, false}, seed++);
  // Output channels in whole blocks (the CPU stores 4 product columns as one NC4HW4 pixel)
  // on the GEMM path: a pointwise conv past the direct kernel's 64 input channels over two
  // row tiles (40 outputs: a column pair, then a partial panel), a strided im2col conv 48
  // wide, and groups of 12.
  runConvCase({{2, 72, 9, 13}, 40, 1, k1, true}, seed++);
  runConvCase({{1, 12, 11, 10}, 48, 1, strided, true}, seed++);
  runConvCase({{2, 16, 7, 9}, 24, 2, k1, true}, seed++);
  // The GEMM writes those blocks itself, bias included, and where K takes several chunks
  // (past 512: chunks of 256) adds the next chunk's sums to them in place: pointwise convs
  // with 300 and 600 inputs on 35 pixels (the last row panel partial; 68 outputs: two column
  // pairs and one block) and 3x3 stride-2 im2col convs with K = 360 and 576, without a bias.
  runConvCase({{1, 300, 5, 7}, 68, 1, k1, true}, seed++);
  runConvCase({{1, 600, 5, 7}, 68, 1, k1, true}, seed++);
  // At most 32 output channels: a pointwise conv (A in NC4HW4) takes the packed kernels,
  // their last panel pair part zero padding (300 -> 24 and 300 -> 20); an im2col conv (A
  // row-major) reads A in place and stores NC4HW4 blocks from a scratch tile, adding later
  // K chunks to them (3x3 stride 2, 40 -> 24 and 40 -> 20: K = 360).
  const Window s2k3pad = {{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}};
  runConvCase({{2, 300, 5, 7}, 24, 1, k1, true}, seed++);
  runConvCase({{1, 300, 5, 7}, 20, 1, k1, false}, seed++);
  runConvCase({{2, 40, 7, 9}, 24, 1, s2k3pad, true}, seed++);
  runConvCase({{1, 40, 7, 9}, 20, 1, s2k3pad, false}, seed++);
  runConvCase({{2, 40, 7, 9}, 36, 1, {{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}}, false}, seed++);
  runConvCase({{1, 64, 7, 9}, 36, 1, {{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}}, false}, seed++);
  // im2col's columns laid out as the GEMM's packed A panels, read in place: 169 positions in
  // two row tiles (96, then 73: six whole panels and one of a single row), batch 2; and
  // K = 1152 (128 channels), which the GEMM takes in two chunks.
  runConvCase({{2, 20, 25, 25}, 36, 1, s2k3pad, true}, seed++);
  runConvCase({{1, 128, 9, 11}, 20, 1, s2k3pad, true}, seed++);
  runConvCase({{1, 128, 13, 11}, 64, 1, s2k3pad, false}, seed++);
}

// 3x3 stride-1 convs with 16+ input channels in whole blocks: the CPU's Winograd F(2x2, 3x3)
// path (ConvWinograd.hpp). Odd output sizes (a last tile half outside y), one-sided and no
// padding, output channels not a multiple of 4, batch 3, more tiles than one task, input
// channels past one GEMM chunk, and rows of many tiles.
TEST(ConvOp, Winograd3x3) {
  const Window k3 = {{3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
  const Window valid = {{3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}};
  const Window oneSided = {{3, 3}, {1, 1}, {1, 1}, {2, 0}, {0, 1}};
  uint32_t seed = 50;
  runConvCase({{1, 16, 7, 9}, 13, 1, k3, true}, seed++);
  runConvCase({{3, 16, 9, 6}, 14, 1, valid, false}, seed++);
  runConvCase({{2, 20, 11, 5}, 24, 1, oneSided, true}, seed++);
  runConvCase({{1, 32, 19, 23}, 17, 1, k3, true}, seed++);  // 120 tiles: three tasks
  runConvCase({{1, 264, 4, 5}, 14, 1, k3, true}, seed++);  // K past 256
  // Rows wide enough for the AVX-512 transform's groups of four tiles, tasks that end
  // mid-row (15 tiles a row, 48 a task) and mid-group, batch 2, and no padding.
  runConvCase({{2, 16, 10, 30}, 28, 1, k3, true}, seed++);
  runConvCase({{1, 24, 6, 26}, 20, 1, valid, false}, seed++);
  // Few outputs (detection heads): Winograd only where the direct kernel is not in use
  // (TESSERA_CPU_ISA=generic); elsewhere ConvOp.FewOutputs' kernel.
  runConvCase({{2, 64, 7, 9}, 6, 1, k3, true}, seed++);
  runConvCase({{1, 128, 5, 6}, 4, 1, k3, true}, seed++);
  // Too few tiles for the threads: tasks split the output channels too (ColumnSplit.hpp): a
  // 7x7 plane's 16 tiles as 48 + 24 channels, 49 tiles in two uneven tasks (48 and 1 tiles)
  // as 32 + 32, batch 2 with a ragged last block (48 + 22).
  runConvCase({{1, 64, 7, 7}, 72, 1, k3, true}, seed++);
  runConvCase({{1, 32, 14, 13}, 64, 1, k3, true}, seed++);
  runConvCase({{2, 16, 5, 4}, 70, 1, k3, false}, seed++);
  // Dilated, one phase of outputs a tile: "same" padding at dilation 2 and 5 (phases with
  // fewer outputs than others, tiles past a phase's end), dh != dw with one-sided padding,
  // no padding, batch 2, a plane where every phase is exactly one tile (10x10 at dilation
  // 5), and one too narrow for a tile a phase (W 4 at dilation 5: not Winograd).
  const Window d2 = {{3, 3}, {1, 1}, {2, 2}, {2, 2}, {2, 2}};
  const Window d5 = {{3, 3}, {1, 1}, {5, 5}, {5, 5}, {5, 5}};
  const Window d32 = {{3, 3}, {1, 1}, {3, 2}, {3, 0}, {1, 2}};
  const Window d2valid = {{3, 3}, {1, 1}, {2, 2}, {0, 0}, {0, 0}};
  runConvCase({{2, 16, 13, 17}, 12, 1, d2, true}, seed++);
  runConvCase({{1, 20, 23, 21}, 9, 1, d5, true}, seed++);
  runConvCase({{1, 16, 10, 10}, 5, 1, d5, false}, seed++);
  runConvCase({{1, 16, 10, 4}, 5, 1, d5, false}, seed++);
  runConvCase({{2, 24, 14, 11}, 16, 1, d32, true}, seed++);
  runConvCase({{1, 16, 12, 13}, 8, 1, d2valid, true}, seed++);
  runConvCase({{1, 32, 29, 40}, 20, 1, d2, true}, seed++);  // several tasks
}

// Stride-1 convs with at most 12 outputs from 5 or more channels: the CPU's direct kernel on
// AVX2 and AVX-512 (ConvFewOutputs.hpp). Detection heads (3x3 into 4-12 from 64-256
// channels, down to a 5x4 plane), one ragged output block and whole ones, input channels not
// a multiple of 4, windows from 1x3 to 11x11 (a style-transfer net's last 9x9 into RGB) with
// one-sided and no padding, a window taller
// than x, rows wide enough for several 24-point register tiles and planes tall enough for
// several bands (and a tile crossing rows, and the band's last tile past its end), batch 3;
// grouped convs whose groups are whole 4-channel blocks; stride 2.
TEST(ConvOp, FewOutputs) {
  const Window k3 = {{3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
  const Window valid = {{3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}};
  uint32_t seed = 500;
  runConvCase({{1, 64, 30, 40}, 12, 1, k3, true}, seed++);
  runConvCase({{2, 64, 15, 20}, 6, 1, k3, true}, seed++);
  runConvCase({{1, 128, 8, 10}, 4, 1, k3, false}, seed++);
  runConvCase({{3, 256, 4, 5}, 6, 1, k3, true}, seed++);
  runConvCase({{1, 256, 4, 5}, 12, 1, k3, true}, seed++);
  runConvCase({{1, 5, 9, 10}, 8, 1, k3, true}, seed++);
  runConvCase({{2, 13, 11, 7}, 1, 1, k3, true}, seed++);
  runConvCase({{1, 12, 6, 8}, 7, 1, valid, false}, seed++);
  runConvCase({{1, 16, 9, 14}, 3, 1, {{5, 5}, {1, 1}, {1, 1}, {2, 1}, {0, 2}}, true}, seed++);
  runConvCase({{1, 8, 5, 11}, 5, 1, {{1, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}}, true}, seed++);
  runConvCase({{1, 6, 13, 12}, 2, 1, {{7, 7}, {1, 1}, {1, 1}, {3, 3}, {3, 3}}, true}, seed++);
  runConvCase({{1, 9, 3, 3}, 10, 1, {{5, 5}, {1, 1}, {1, 1}, {2, 2}, {2, 2}}, true}, seed++);
  runConvCase({{2, 11, 21, 30}, 3, 1, {{9, 9}, {1, 1}, {1, 1}, {4, 4}, {4, 4}}, true}, seed++);
  runConvCase({{1, 6, 12, 13}, 5, 1, {{11, 9}, {1, 1}, {1, 1}, {5, 0}, {3, 4}}, false}, seed++);
  runConvCase({{1, 32, 6, 50}, 10, 1, k3, true}, seed++);
  runConvCase({{1, 16, 40, 7}, 12, 1, k3, false}, seed++);
  runConvCase({{1, 7, 1, 1}, 9, 1, k3, true}, seed++);  // one pixel, every tap but one in the padding
  // Groups of whole blocks (ResNeXt's 3x3 convs): 4, 8 and 16 outputs a group from 4-16
  // channels, batch 2, tasks split over groups, bands and blocks.
  runConvCase({{2, 32, 13, 17}, 32, 8, k3, true}, seed++);
  runConvCase({{1, 64, 9, 30}, 64, 4, k3, false}, seed++);
  runConvCase({{1, 24, 7, 9}, 16, 2, {{5, 5}, {1, 1}, {1, 1}, {2, 1}, {2, 3}}, true}, seed++);
  runConvCase({{2, 8, 20, 6}, 32, 2, valid, true}, seed++);
  // Stride 2 (four phase planes a channel): odd and even sizes and left pads (which parity a
  // pixel's column takes), rows wide enough for the 8-pixel split and its tail, a 5x5 and a
  // 2x2 window, one group and groups (ResNeXt's stage transitions).
  const Window s2 = {{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}};
  runConvCase({{2, 16, 27, 35}, 7, 1, s2, true}, seed++);
  runConvCase({{1, 64, 28, 28}, 64, 8, s2, false}, seed++);
  runConvCase({{1, 32, 14, 23}, 32, 2, {{5, 5}, {2, 2}, {1, 1}, {2, 1}, {1, 2}}, true}, seed++);
  runConvCase({{2, 12, 9, 10}, 12, 3, {{2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}}, true}, seed++);
  runConvCase({{1, 6, 5, 3}, 4, 1, {{3, 3}, {2, 2}, {1, 1}, {0, 2}, {1, 0}}, true}, seed++);
  // A 0-wide x under auto_pad SAME: an empty y of the right shape (the kernel itself refuses
  // empty planes, whose padded grid would be 0 wide).
  Attributes same;
  same.setString("auto_pad", "SAME_UPPER");
  OpRun r = runOp("Conv", {randomTensor({1, 8, 5, 0}, seed), randomTensor({4, 8, 3, 1}, seed + 1)}, same, 1,
                  BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  EXPECT_EQ(r.outputs[0].shape(), Shape({1, 4, 5, 0}));
}

// 1-4 input channels: the CPU's direct kernel on AVX-512 and AVX2 (ConvFewChannels.hpp), with
// rows wide enough for its twelve-pixel steps (four on AVX2) and their tails, more than 16 output channels (a
// ragged second group of 16), strides, dilation, asymmetric padding and batch 2.
TEST(ConvOp, FewInputChannels) {
  const Window stem = {{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}};
  const Window wide = {{5, 3}, {1, 2}, {2, 1}, {0, 2}, {3, 1}};
  uint32_t seed = 70;
  runConvCase({{2, 3, 13, 37}, 37, 1, stem, true}, seed++);
  runConvCase({{1, 1, 9, 30}, 16, 1, wide, false}, seed++);
  runConvCase({{1, 4, 6, 19}, 6, 1, {{7, 7}, {1, 1}, {1, 1}, {3, 3}, {3, 3}}, true}, seed++);
  runConvCase({{1, 2, 5, 17}, 20, 1, {{1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}}, true}, seed++);
  // 3-wide windows over NCHW with stride 1 or 2 (the unrolled kernels), each channel count;
  // rows whose last tile overlaps the one before it, and rows too short for any tile.
  const Window s1 = {{3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
  const Window s2Uneven = {{3, 3}, {2, 2}, {1, 1}, {1, 0}, {1, 1}};
  runConvCase({{2, 1, 7, 21}, 5, 1, s1, true}, seed++);
  runConvCase({{1, 2, 11, 26}, 16, 1, s2Uneven, false}, seed++);
  runConvCase({{1, 4, 5, 9}, 33, 1, stem, true}, seed++);
  runConvCase({{1, 3, 4, 5}, 7, 1, s1, true}, seed++);
  runConvCase({{2, 3, 9, 31}, 16, 1, stem, true}, seed++);
  runConvCase({{1, 3, 9, 14}, 8, 1, {{3, 3}, {2, 2}, {2, 2}, {2, 2}, {2, 2}}, true}, seed++);  // dilation: generic
  runConvCase({{1, 3, 3, 10}, 16, 1, s1, true}, seed++);  // 8 pixels between the padded edges: no tile
  runConvCase({{1, 3, 3, 18}, 16, 1, s1, false}, seed++);  // 16: a tile and an overlapping one
  runConvCase({{1, 3, 3, 14}, 16, 1, s1, true}, seed++);   // exactly one tile (12 pixels)
  runConvCase({{1, 3, 3, 26}, 16, 1, s1, false}, seed++);  // exactly two
  // The same for AVX2's four-pixel tiles: one exactly, one and an overlapping one, none.
  runConvCase({{1, 3, 3, 6}, 16, 1, s1, true}, seed++);
  runConvCase({{2, 3, 3, 9}, 20, 1, s1, false}, seed++);
  runConvCase({{1, 3, 3, 5}, 16, 1, s1, true}, seed++);
  runConvCase({{2, 3, 11, 35}, 12, 1, stem, true}, seed++);  // three NC4HW4 blocks a pixel
  // 7-wide windows at stride 2 (ResNet's stem; unrolled on AVX-512): rows of tiles and edges,
  // image rows all inside the window or not, two groups of 16, 1 and 4 channels, a row too
  // short for a tile.
  const Window stem7 = {{7, 7}, {2, 2}, {1, 1}, {3, 3}, {3, 3}};
  runConvCase({{2, 3, 17, 45}, 20, 1, stem7, true}, seed++);
  runConvCase({{1, 1, 9, 37}, 16, 1, stem7, false}, seed++);
  runConvCase({{1, 4, 12, 61}, 33, 1, {{7, 7}, {2, 2}, {1, 1}, {2, 3}, {4, 1}}, true}, seed++);
  runConvCase({{1, 3, 8, 15}, 16, 1, stem7, true}, seed++);
}

// Pointwise convs with up to 24 input channels, or up to 32 outputs from up to 64 inputs:
// the CPU's direct kernel on AVX-512 and AVX2 (ConvPointwise.hpp). Input and output
// channels not multiples of 4 (the last input block masked), pixel counts that leave a tail of
// 1-7 pixels (AVX2: 1-3 after its 4-pixel steps), output blocks split into even passes
// (AVX-512: 12 -> 6 + 6, 10 -> 5 + 5; AVX2: 12 -> 4 + 4 + 4, 10 -> 5 + 5) and one short pass,
// batch 3, and each limit with the shape just past it (on the GEMM).
TEST(ConvOp, PointwiseFewInputChannels) {
  const Window k1 = {{1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}};
  uint32_t seed = 90;
  runConvCase({{1, 16, 9, 13}, 32, 1, k1, true}, seed++);   // 117 pixels: a tail of 5
  runConvCase({{3, 18, 5, 7}, 48, 1, k1, true}, seed++);    // 12 blocks: 6 + 6
  runConvCase({{1, 6, 3, 3}, 37, 1, k1, false}, seed++);    // 10 blocks: 5 + 5; 9 pixels
  runConvCase({{2, 33, 4, 5}, 3, 1, k1, true}, seed++);     // one block of 3 channels
  runConvCase({{1, 24, 6, 11}, 40, 1, k1, true}, seed++);
  runConvCase({{1, 25, 6, 11}, 40, 1, k1, true}, seed++);   // the GEMM
  runConvCase({{1, 64, 6, 11}, 32, 1, k1, true}, seed++);
  runConvCase({{1, 65, 6, 11}, 32, 1, k1, true}, seed++);   // the GEMM
  runConvCase({{1, 64, 6, 11}, 33, 1, k1, true}, seed++);   // the GEMM
  runConvCase({{1, 12, 1, 1}, 96, 1, k1, true}, seed++);    // one pixel
}

TEST(ConvOp, Depthwise) {
  const Window k3 = {{3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
  const Window s2 = {{3, 3}, {2, 2}, {1, 1}, {1, 0}, {1, 1}};
  const Window k5 = {{5, 5}, {1, 1}, {2, 2}, {4, 4}, {4, 4}};
  uint32_t seed = 100;
  for (int64_t c : {3, 5, 13})
    for (const Window& w : {k3, s2, k5}) runConvCase({{2, c, 9, 11}, c, c, w, true}, seed++);
  runConvCase({{1, 3, 6, 5}, 6, 3, k3, true}, seed++);  // channel multiplier 2: grouped path
  // Rows wide enough for the CPU's 16-outputs-at-a-time interior kernel, and its tail.
  for (const Window& w : {k3, k5}) runConvCase({{2, 6, 5, 41}, 6, 6, w, true}, seed++);
  // ... and for its 32-at-a-time one (KW 3 and 5, no dilation): two steps of 32, then 16
  // and 4-wide tails, channels past one block, rows in the padding, and an input whose last
  // row ends where the tensor does.
  const Window k5plain = {{5, 5}, {1, 1}, {1, 1}, {2, 2}, {2, 2}};
  const Window k3wide = {{3, 3}, {1, 1}, {1, 1}, {1, 0}, {0, 1}};
  for (const Window& w : {k3, k5plain, k3wide}) runConvCase({{2, 7, 4, 87}, 7, 7, w, true}, seed++);
  // Stride 2 along W, KW 3 and 5, rows wide enough for its 16-outputs-at-a-time kernel (two
  // steps, then the 4-wide and single-output paths), odd and even widths.
  const Window s2k3 = {{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}};
  const Window s2k5 = {{5, 5}, {2, 2}, {1, 1}, {2, 2}, {2, 2}};
  const Window s12k3 = {{3, 3}, {1, 2}, {1, 1}, {1, 1}, {1, 0}};
  for (const Window& w : {s2k3, s2k5, s12k3}) runConvCase({{1, 6, 5, 79}, 6, 6, w, true}, seed++);
  runConvCase({{2, 5, 4, 72}, 5, 5, s2k5, false}, seed++);
  // The AVX-512 whole-row kernels (KW 3 or 5, stride 1 or 2) at every kind of row end: rows
  // narrower than one step, exactly one or two steps, a step past them, 9 outputs left at
  // stride 2 (one more than its short last step), with the window masked at both ends
  // (padding wider than the tap reach included).
  const Window k5pad4 = {{5, 5}, {1, 1}, {1, 1}, {4, 4}, {4, 4}};
  for (int64_t width : {5, 7, 17, 31, 32, 33, 49, 64})
    for (const Window& w : {k3, k5plain, k3wide, k5pad4, s2k3, s2k5, s12k3})
      runConvCase({{1, 5, 3, width}, 5, 5, w, true}, seed++);
  for (int64_t width : {1, 2})
    for (const Window& w : {k3, k5pad4, s2k3}) runConvCase({{1, 5, 3, width}, 5, 5, w, true}, seed++);
  // The row pairs (two output rows from the input rows they read; AVX-512, and AVX2 for 3x3
  // at stride 1): 7 and 8 rows, so pairs, single rows at the padded top and bottom, and a row
  // left over; rows narrower than a step, exactly one, and past it; no left padding (k3wide);
  // 3x3 and 5x5, at stride 1 and 2.
  // Stride 2 down the plane, 1 along the rows (no pairs: those rows are two apart).
  const Window s21k3 = {{3, 3}, {2, 1}, {1, 1}, {1, 1}, {1, 1}};
  for (int64_t height : {7, 8})
    for (int64_t width : {5, 16, 17, 33})
      for (const Window& w : {k3, k3wide, k5plain, s21k3, s2k3, s2k5})
        runConvCase({{2, 6, height, width}, 6, 6, w, true}, seed++);
  // Rows narrower than a step on many channel blocks, split over the threads by blocks: a
  // store past a row's end would land on the next block's first output, which the other
  // thread has usually written already (AVX2's one masked step for rows under 8 outputs).
  // The threads' order varies: enough channels that the second thread starts before the
  // first is done (woken from sleep, it had been late for small convs), each shape twice.
  for (int repeat = 0; repeat < 2; ++repeat)
    for (int64_t width : {7, 3}) runConvCase({{1, 2048, 7, width}, 2048, 2048, k3, true}, seed++);
}

// Convs with their activation fused (no Z): the CPU's depthwise whole-row kernels, its
// pointwise kernel, Winograd and the GEMM's NC4HW4 stores clamp Relu and Clip in registers
// (RegisterClamp), the other kinds are a pass over the tile. Depthwise rows of one step and
// less (7 wide: MobileNets' last planes), several steps, strides 1 and 2, KW 3 and 5, many
// channels on small planes (several blocks a task), one output row, batch 2; pointwise
// convs with few input channels, a ragged last output block and pixel counts that end
// mid-step; GEMM convs through its in-place tiles (im2col, 8 outputs), its packed kernels
// (A read in place; im2col with 36 outputs) and K in chunks (600 input channels: the clamp
// on the last chunk only); Winograd, which clamps as it copies its tiles into y.
TEST(ConvOp, FusedActivationWithoutSum) {
  struct Act {
    const char* op;
    std::vector<float> params;
    float (*apply)(float, const std::vector<float>&);
  };
  const std::vector<Act> acts = {
      {"Relu", {}, [](float v, const std::vector<float>&) { return std::max(0.f, v); }},
      {"Clip", {0.f, 6.f}, [](float v, const std::vector<float>& p) { return std::max(p[0], std::min(p[1], v)); }},
      {"Clip", {-0.5f, 0.75f}, [](float v, const std::vector<float>& p) { return std::max(p[0], std::min(p[1], v)); }},
      {"HardSwish", {}, [](float v, const std::vector<float>&) { return v * std::max(0.f, std::min(1.f, v / 6.f + 0.5f)); }},
      {"Gelu", {}, [](float v, const std::vector<float>&) { return static_cast<float>(0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))); }},
      {"GeluTanh", {}, [](float v, const std::vector<float>&) {
         return static_cast<float>(0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
       }},
  };
  const Window k3 = {{3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
  const Window s2 = {{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}};
  const Window k5 = {{5, 5}, {1, 1}, {1, 1}, {2, 2}, {2, 2}};
  const Window k1 = {{1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}};
  struct Case {
    Shape x;
    int64_t m, group;
    Window w;
  };
  const std::vector<Case> cases = {{{2, 13, 7, 7}, 13, 13, k3},   {{1, 96, 7, 7}, 96, 96, k3},   {{1, 40, 14, 14}, 40, 40, s2},
                                   {{2, 6, 9, 37}, 6, 6, k5},     {{1, 5, 1, 80}, 5, 5, k3},     {{1, 7, 11, 45}, 7, 7, s2},
                                   {{1, 9, 3, 5}, 9, 9, k5},      {{2, 16, 9, 13}, 96, 1, k1},   {{1, 12, 5, 7}, 6, 1, k1},
                                   {{1, 48, 3, 11}, 13, 1, k1},   {{2, 7, 9, 11}, 8, 1, k3},     {{1, 96, 5, 7}, 40, 1, k1},
                                   {{1, 600, 5, 5}, 48, 1, k1},   {{1, 8, 9, 10}, 36, 1, s2},    {{2, 16, 7, 9}, 12, 1, k3},
                                   {{1, 32, 5, 6}, 6, 1, k3},     {{1, 20, 9, 14}, 5, 1, k5},
                                   // 1-4 input channels (ConvFewChannels.hpp: Relu and Clip
                                   // in registers): tiles and edges, two groups of 16, 7x7.
                                   {{2, 3, 11, 37}, 20, 1, s2},   {{1, 1, 5, 30}, 8, 1, k3},
                                   {{1, 3, 9, 45}, 16, 1, {{7, 7}, {2, 2}, {1, 1}, {3, 3}, {3, 3}}}};
  uint32_t seed = 700;
  for (const Case& c : cases) {
    const Tensor x = randomTensor(c.x, seed, -4.f, 4.f);
    const Tensor w = randomTensor({c.m, c.x[1] / c.group, c.w.kernel[0], c.w.kernel[1]}, seed + 1);
    const Tensor b = randomTensor({c.m}, seed + 2);
    seed += 3;
    const Tensor conv = convReference(x, w, &b, c.w, c.group);
    for (const Act& a : acts) {
      Tensor expected = Tensor::hostAllocate(conv.shape(), DataType::kF32);
      for (int64_t i = 0; i < conv.elementCount(); ++i) expected.data<float>()[i] = a.apply(conv.data<float>()[i], a.params);
      Attributes attrs = windowAttributes(c.w, c.group);
      attrs.setString("activation", a.op);
      if (!a.params.empty()) attrs.setFloats("activation_params", a.params);
      OpRun r = runOp("Conv", {x, w, b}, attrs, 1, BackendType::kCPU, {false, true, true});
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectClose(r.outputs[0], expected, 1e-4, 1e-4, shapeToString(c.x) + " to " + std::to_string(c.m) + " " + a.op);
    }
  }
}

TEST(ConvOp, Conv1DAnd3D) {
  runConvCase({{3, 5, 17}, 7, 1, {{3}, {2}, {1}, {1}, {2}}, true}, 200);
  runConvCase({{1, 4, 9}, 6, 2, {{2}, {1}, {3}, {0}, {0}}, false}, 201);
  runConvCase({{2, 3, 5, 6, 7}, 5, 1, {{3, 2, 3}, {1, 2, 1}, {1, 1, 2}, {1, 0, 2}, {1, 1, 0}}, true}, 202);
}

TEST(ConvOp, AutoPad) {
  const Tensor x = randomTensor({1, 3, 7, 8}, 300);
  const Tensor w = randomTensor({4, 3, 3, 2}, 301);
  for (const char* mode : {"SAME_UPPER", "SAME_LOWER", "VALID"}) {
    Attributes a;
    a.setString("auto_pad", mode);
    a.setInts("strides", {2, 3});
    const std::string m = mode;
    Window win = {{3, 2}, {2, 3}, {1, 1}, {0, 0}, {0, 0}};
    if (m != "VALID") {
      for (int d = 0; d < 2; ++d) {
        const int64_t in = x.dim(2 + d), s = win.stride[d], out = (in + s - 1) / s;
        const int64_t total = std::max<int64_t>(0, (out - 1) * s + win.kernel[d] - in);
        win.padBegin[d] = m == "SAME_UPPER" ? total / 2 : total - total / 2;
        win.padEnd[d] = total - win.padBegin[d];
      }
    }
    OpRun r = runOp("Conv", {x, w}, a, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], convReference(x, w, nullptr, win, 1), 1e-4, 1e-4, mode);
  }
}

TEST(ConvOp, RejectsMismatchedChannels) {
  OpRun r = runOp("Conv", {randomTensor({1, 5, 4, 4}, 1), randomTensor({8, 4, 3, 3}, 2)}, {}, 1, BackendType::kCPU);
  EXPECT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("5 channels"), std::string::npos) << r.status.message();
}

// Z (ops/Conv.hpp) on every CPU Conv kernel, with every activation, against Conv -> Add ->
// activation.
TEST(ConvOp, SumInputBeforeTheActivation) {
  for (const ConvSumCase& c : convSumCases())
    for (const ConvSumActivation& act : convSumActivations()) expectConvSumMatchesUnfused(c, act, BackendType::kCPU);
}

// Z must have exactly the output's shape (no broadcasting), and ConvTranspose takes none.
TEST(ConvOp, SumInputOfAnotherShapeIsAnError) {
  const Tensor x = randomTensor({1, 3, 4, 4}, 1), w = randomTensor({4, 3, 1, 1}, 2), b = randomTensor({4}, 3);
  OpRun r = runOp("Conv", {x, w, b, randomTensor({1, 4, 1, 1}, 4)}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("input 'Z' is f32 1x4x1x1 but must be the output's f32 1x4x4x4"),
            std::string::npos) << r.status.message();
  r = runOp("ConvTranspose", {x, randomTensor({3, 4, 1, 1}, 5), b, randomTensor({1, 4, 4, 4}, 6)}, {}, 1,
            BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("takes no input 'Z'"), std::string::npos) << r.status.message();
}

// Conv -> Reciprocal -> {Conv, depthwise Conv, pointwise Conv, MaxPool, BatchNormalization}:
// Reciprocal keeps NC4HW4 and turns the zero padding lanes into inf, which no consumer may let
// through.
TEST(ConvOp, IgnoresInfInPaddingLanes) {
  const Tensor x = randomTensor({1, 3, 6, 5}, 600, 0.f, 1.f);
  const Tensor w1 = randomTensor({5, 3, 1, 1}, 601, 0.1f, 0.5f), b1 = randomTensor({5}, 602, 1.f, 2.f);
  const Tensor w2 = randomTensor({7, 5, 3, 3}, 603), wd = randomTensor({5, 1, 3, 3}, 604);
  const Tensor bn = randomTensor({5}, 605, 0.5f, 1.f), wp = randomTensor({6, 5, 1, 1}, 606);
  const Window k1 = {{1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}}, k3 = {{3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
  Tensor mid = convReference(x, w1, &b1, k1, 1);
  for (int64_t i = 0; i < mid.elementCount(); ++i) mid.data<float>()[i] = 1.f / mid.data<float>()[i];

  GraphBuilder gb;
  const std::string in = gb.input("x", DataType::kF32, x.shape());
  const std::string h = gb.op1("Reciprocal", {gb.op1("Conv", {in, gb.constant("w1", w1), gb.constant("b1", b1)},
                                                     windowAttributes(k1, 1))});
  const std::string y1 = gb.op1("Conv", {h, gb.constant("w2", w2)}, windowAttributes(k3, 1));
  const std::string y2 = gb.op1("Conv", {h, gb.constant("wd", wd)}, windowAttributes(k3, 5));
  Attributes pool;
  pool.setInts("kernel_shape", {2, 2});
  const std::string y3 = gb.op1("MaxPool", {h}, pool);
  const std::string y4 = gb.op1("BatchNormalization", {h, gb.constant("s", bn), gb.constant("b", bn), gb.constant("m", bn),
                                                       gb.constant("v", bn)});
  const std::string y5 = gb.op1("Conv", {h, gb.constant("wp", wp)}, windowAttributes(k1, 1));
  const Window up = {{2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}};
  const Tensor wt = randomTensor({5, 2, 2, 2}, 607);
  const std::string y6 = gb.op1("ConvTranspose", {h, gb.constant("wt", wt)}, windowAttributes(up, 1));
  for (const std::string& o : {y1, y2, y3, y4, y5, y6}) gb.output(o);
  std::shared_ptr<Graph> g;
  ASSERT_TRUE(gb.build(&g).isOk());
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(g, SessionOptions(), &session).isOk());
  std::map<std::string, Tensor> outs;
  Status st = session->run({{in, x}}, &outs);
  ASSERT_TRUE(st.isOk()) << st.message();
  expectClose(outs[y1], convReference(mid, w2, nullptr, k3, 1), 1e-4, 1e-4, "Conv after inf lanes");
  expectClose(outs[y2], convReference(mid, wd, nullptr, k3, 5), 1e-4, 1e-4, "depthwise Conv after inf lanes");
  expectClose(outs[y5], convReference(mid, wp, nullptr, k1, 1), 1e-4, 1e-4, "pointwise Conv after inf lanes");
  expectClose(outs[y6], convTransposeReference(mid, wt, nullptr, up, 1, {1, 2, 12, 10}), 1e-4, 1e-4,
              "ConvTranspose onto 2 channels after inf lanes");
  for (const std::string& o : {y3, y4})
    for (int64_t i = 0; i < outs[o].elementCount(); ++i) ASSERT_TRUE(std::isfinite(outs[o].data<float>()[i])) << o;
}

void runConvTransposeCase(const Shape& xs, int64_t outPerGroup, int64_t group, const Window& w,
                          const std::vector<int64_t>& outputPadding, bool bias, uint32_t seed) {
  Shape ws = {xs[1], outPerGroup};
  ws.insert(ws.end(), w.kernel.begin(), w.kernel.end());
  const Tensor x = randomTensor(xs, seed), wt = randomTensor(ws, seed + 1);
  const Tensor b = randomTensor({outPerGroup * group}, seed + 2);
  Shape ys = {xs[0], outPerGroup * group};
  for (size_t d = 0; d < w.kernel.size(); ++d)
    ys.push_back(w.stride[d] * (xs[2 + d] - 1) + outputPadding[d] + (w.kernel[d] - 1) * w.dilation[d] + 1 -
                 w.padBegin[d] - w.padEnd[d]);
  Attributes a = windowAttributes(w, group);
  a.setInts("output_padding", outputPadding);
  std::vector<Tensor> inputs = {x, wt};
  if (bias) inputs.push_back(b);
  const Tensor expected = convTransposeReference(x, wt, bias ? &b : nullptr, w, group, ys);
  for (bool constantWeights : {false, true}) {
    OpRun r = runOp("ConvTranspose", inputs, a, 1, BackendType::kCPU, {false, constantWeights, constantWeights});
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    expectClose(r.outputs[0], expected, 1e-4, 1e-4, "ConvTranspose x " + shapeToString(xs) + " w " + shapeToString(ws));
  }
}

TEST(ConvTransposeOp, Sweep) {
  runConvTransposeCase({1, 3, 5, 7}, 5, 1, {{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}}, {1, 1}, true, 400);
  runConvTransposeCase({3, 6, 4, 3}, 2, 3, {{2, 3}, {1, 2}, {2, 1}, {0, 1}, {1, 0}}, {0, 1}, false, 401);
  runConvTransposeCase({2, 13, 3, 3}, 7, 1, {{4, 4}, {2, 2}, {1, 1}, {1, 1}, {1, 1}}, {0, 0}, true, 402);
  runConvTransposeCase({2, 5, 9}, 3, 1, {{3}, {3}, {1}, {1}, {0}}, {2}, true, 403);
  runConvTransposeCase({1, 2, 3, 4, 3}, 3, 2, {{2, 3, 2}, {2, 1, 2}, {1, 1, 1}, {0, 1, 0}, {0, 1, 1}}, {1, 0, 0}, true, 404);
  // kernel <= stride (no two taps meet: the CPU's tiled path): 4-channel blocks, groups that
  // start mid-block, one output channel, dilation, pads and output_padding (outputs only the
  // bias reaches).
  runConvTransposeCase({2, 24, 5, 7}, 24, 1, {{2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}}, {0, 0}, true, 405);
  // Groups of whole input blocks, the second starting at channel 8: x read in place.
  runConvTransposeCase({2, 16, 3, 5}, 6, 2, {{2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}}, {0, 0}, true, 409);
  runConvTransposeCase({1, 6, 4, 5}, 6, 2, {{2, 3}, {3, 3}, {1, 1}, {1, 0}, {0, 1}}, {1, 0}, true, 406);
  runConvTransposeCase({2, 9, 5, 6}, 1, 1, {{2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}}, {0, 0}, true, 407);
  runConvTransposeCase({1, 6, 3, 4}, 4, 2, {{2, 2}, {2, 3}, {1, 2}, {0, 1}, {1, 0}}, {1, 2}, false, 408);
  // Overlapping taps (ConvTransposePhases.hpp: a GEMM per output phase): the decoders' 3x3
  // stride 2 with output_padding over whole and partial 4-channel blocks and batch 2, tiles
  // of several tasks, stride 3 with a kernel of 5 (phases of 1 and 2 taps), groups (whose
  // channels start mid-block, or on one), stride 1, and a
  // stride past the kernel with dilation (phases no tap reaches: the bias alone).
  runConvTransposeCase({2, 20, 9, 11}, 13, 1, {{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}}, {1, 1}, true, 419);
  runConvTransposeCase({1, 8, 17, 23}, 8, 1, {{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}}, {1, 1}, true, 420);
  runConvTransposeCase({1, 10, 4, 6}, 6, 2, {{5, 4}, {3, 2}, {1, 1}, {2, 0}, {1, 1}}, {2, 1}, false, 421);
  runConvTransposeCase({2, 16, 5, 3}, 6, 2, {{3, 3}, {2, 2}, {1, 1}, {0, 1}, {1, 0}}, {1, 0}, true, 424);
  runConvTransposeCase({2, 7, 5, 6}, 9, 1, {{3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, {0, 0}, true, 422);
  runConvTransposeCase({1, 5, 4, 5}, 3, 1, {{2, 2}, {3, 3}, {2, 2}, {0, 0}, {0, 0}}, {2, 2}, true, 423);
}

// A fused activation on the 2x2 stride-2 kernel (ConvTransposeUpsample.hpp: a pass over the
// two output rows an input row makes), an odd channel count and batch 2, and a general window
// for the other path.
TEST(ConvTransposeOp, FusedActivation) {
  struct Act {
    const char* op;
    std::vector<float> params;
  };
  const std::vector<Act> acts = {{"Relu", {}}, {"Clip", {-0.25f, 0.5f}}, {"HardSwish", {}}};
  const Window up = {{2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}};
  const Window k3 = {{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}};
  struct Case {
    Shape x;
    int64_t m;
    Window w;
  };
  uint32_t seed = 430;
  for (const Case& c : std::vector<Case>{{{2, 24, 5, 7}, 13, up}, {{1, 9, 6, 11}, 24, up}, {{1, 5, 4, 5}, 6, k3}}) {
    const Tensor x = randomTensor(c.x, seed, -2.f, 2.f), wt = randomTensor({c.x[1], c.m, c.w.kernel[0], c.w.kernel[1]}, seed + 1);
    const Tensor b = randomTensor({c.m}, seed + 2);
    seed += 3;
    const Shape ys = {c.x[0], c.m, c.w.stride[0] * (c.x[2] - 1) + c.w.kernel[0] - c.w.padBegin[0] - c.w.padEnd[0],
                      c.w.stride[1] * (c.x[3] - 1) + c.w.kernel[1] - c.w.padBegin[1] - c.w.padEnd[1]};
    const Tensor plain = convTransposeReference(x, wt, &b, c.w, 1, ys);
    for (const Act& a : acts) {
      Tensor expected = Tensor::hostAllocate(plain.shape(), DataType::kF32);
      for (int64_t i = 0; i < plain.elementCount(); ++i) {
        const float v = plain.data<float>()[i];
        float e = std::max(0.f, v);
        if (a.params.size() == 2) e = std::max(a.params[0], std::min(a.params[1], v));
        if (std::string(a.op) == "HardSwish") e = v * std::max(0.f, std::min(1.f, v / 6.f + 0.5f));
        expected.data<float>()[i] = e;
      }
      Attributes attrs = windowAttributes(c.w, 1);
      attrs.setString("activation", a.op);
      if (!a.params.empty()) attrs.setFloats("activation_params", a.params);
      OpRun r = runOp("ConvTranspose", {x, wt, b}, attrs, 1, BackendType::kCPU, {false, true, true});
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectClose(r.outputs[0], expected, 1e-4, 1e-4, "ConvTranspose " + shapeToString(c.x) + " " + a.op);
    }
  }
}

TEST(ConvTransposeOp, OutputShapeAndAutoPad) {
  const Tensor x = randomTensor({1, 2, 3, 4}, 500), w = randomTensor({2, 3, 3, 3}, 501);
  // output_shape larger than the natural size: the extra rows/columns come at the end.
  Attributes a;
  a.setInts("strides", {2, 2});
  a.setInts("output_shape", {8, 10});
  OpRun r = runOp("ConvTranspose", {x, w}, a, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  // natural 7x9 (pads 0), then one more zero-contribution row and column at the end
  const Window natural = {{3, 3}, {2, 2}, {1, 1}, {0, 0}, {-1, -1}};
  expectClose(r.outputs[0], convTransposeReference(x, w, nullptr, natural, 1, {1, 3, 8, 10}), 1e-4, 1e-4, "output_shape");
  // SAME_UPPER: output = input * stride, total padding 1 goes to the end.
  Attributes s;
  s.setInts("strides", {2, 2});
  s.setString("auto_pad", "SAME_UPPER");
  r = runOp("ConvTranspose", {x, w}, s, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  const Window same = {{3, 3}, {2, 2}, {1, 1}, {0, 0}, {1, 1}};
  expectClose(r.outputs[0], convTransposeReference(x, w, nullptr, same, 1, {1, 3, 6, 8}), 1e-4, 1e-4, "SAME_UPPER");
}

// The 2x2 stride-2 kernel (NC4HW4 in and out): input channels not a multiple of 4, output
// blocks that fill no, one, or several register tiles with a remainder (4, 12 and 14 8-float
// units per pixel, against tiles of 6 units on AVX-512 and 4 on AVX2), widths with a remainder
// of pixels, batch 2, with and without bias; output_padding falls back to the general path.
TEST(ConvTransposeOp, Upsample2x2Stride2) {
  const Window up{{2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}};
  runConvTransposeCase({2, 5, 3, 7}, 7, 1, up, {0, 0}, true, 410);
  runConvTransposeCase({1, 13, 3, 9}, 24, 1, up, {0, 0}, false, 411);
  runConvTransposeCase({2, 96, 2, 11}, 26, 1, up, {0, 0}, true, 412);
  runConvTransposeCase({1, 4, 1, 1}, 4, 1, up, {0, 0}, true, 413);
  runConvTransposeCase({1, 7, 3, 5}, 9, 1, up, {1, 1}, true, 414);
  // 1-3 output channels (NCHW y, the CPU's few-outputs kernel on AVX-512 and AVX2): 8- and
  // 4-pixel steps (AVX2: 4 and 2) and a 1-3 pixel tail, input channels that end mid-block,
  // batch 2.
  runConvTransposeCase({2, 24, 3, 15}, 1, 1, up, {0, 0}, true, 415);
  runConvTransposeCase({1, 5, 2, 13}, 2, 1, up, {0, 0}, true, 416);
  runConvTransposeCase({1, 9, 4, 6}, 3, 1, up, {0, 0}, false, 417);
  runConvTransposeCase({1, 3, 1, 2}, 1, 1, up, {0, 0}, true, 418);
}

}  // namespace
}  // namespace test
}  // namespace tessera
