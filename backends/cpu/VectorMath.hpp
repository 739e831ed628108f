// Vectorised transcendental functions on f32 arrays: y[i] = f(x[i]) for i < n. `y` may be `x`
// (in place) but must not otherwise overlap it. Each call runs the path cpuIsa() chose
// (AVX-512, AVX2+FMA, or portable 4-wide vectors); only x[0, n) is read and y[0, n) written.
//
// Accuracy against double-precision libm, measured over all 2^32 inputs: 0.9 to 1.7 ulp, 2.4
// for sigmoid (docs/cpu-vector-math.md; bounds asserted by tests/unit/VectorMathTest.cpp). NaN
// in gives NaN out; overflow gives inf and underflow goes through the subnormals to 0, as libm
// does; signed zeros are kept where libm keeps them.
#pragma once
#include <cstdint>

namespace tessera {

void vectorExp(const float* x, float* y, int64_t n);
void vectorExpm1(const float* x, float* y, int64_t n);  // exp(x) - 1, accurate near 0
void vectorLog(const float* x, float* y, int64_t n);    // log(0) = -inf, log(x < 0) = NaN
void vectorSigmoid(const float* x, float* y, int64_t n);
void vectorTanh(const float* x, float* y, int64_t n);
void vectorErf(const float* x, float* y, int64_t n);
void vectorSoftplus(const float* x, float* y, int64_t n);  // log(1 + exp(x)), for any x
void vectorGelu(const float* x, float* y, int64_t n);      // x/2 (1 + erf(x / sqrt 2)) in one pass
void vectorGeluTanh(const float* x, float* y, int64_t n);  // x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
void vectorSwish(const float* x, float* y, int64_t n, float alpha);  // x sigmoid(alpha x) in one pass

// The ONNX activations built on expm1 (x <= 0 side), same attributes as the ops.
void vectorElu(const float* x, float* y, int64_t n, float alpha);  // x >= 0 ? x : alpha (e^x - 1)
void vectorSelu(const float* x, float* y, int64_t n, float alpha, float gamma);
void vectorCelu(const float* x, float* y, int64_t n, float alpha);  // max(0,x) + min(0, alpha (e^(x/alpha) - 1))

// HardSwish, x * max(0, min(1, (x + 3) * (1/6))) (x/6 + 1/2 without a division), bit for bit
// as the scalar code (ops/UnaryMath.hpp) computes it; the affine form then multiplies by
// `scale` and adds `shift` (a conv's fused HardSwish and the Mul/Add folded after it), which
// the AVX paths may fuse (one rounding where the scalar pass rounds twice).
void vectorHardSwish(const float* x, float* y, int64_t n);
void vectorHardSwishAffine(const float* x, float* y, int64_t n, float scale, float shift);

// One step of an LSTM's cells with the default activations, over n units: from the gates'
// pre-activations i, o, f, g (inputs, recurrence and biases summed), c = sigmoid(f) c +
// sigmoid(i) tanh(g) in place and h = sigmoid(o) tanh(c), in one pass. The activations are
// vectorSigmoid's and vectorTanh's to the bit; the AVX paths may fuse the products and the sum
// into multiply-adds (one rounding where the portable path rounds twice).
void vectorLstmCell(const float* i, const float* o, const float* f, const float* g, float* c, float* h, int64_t n);

// Softmax's passes over a row: the largest of x[0, n) (-inf when empty; NaN ignored, as
// std::max(best, x) ignores it); y = exp(x - shift), returning the sum of y (y may be x; shift
// at least every x, as the row's largest is); and y *= scale.
float vectorMax(const float* x, int64_t n);
float vectorExpShiftedSum(const float* x, float* y, int64_t n, float shift);
void vectorScale(float* y, int64_t n, float scale);

}  // namespace tessera
