#include "tessera/Tensor.hpp"

#include "HostMemory.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace tessera {

const char* layoutName(Layout l) {
  switch (l) {
    case Layout::kNCHW: return "NCHW";
    case Layout::kNHWC: return "NHWC";
    case Layout::kNC4HW4: return "NC4HW4";
  }
  return "?";
}

int64_t physicalElementCount(const Shape& s, Layout l) {
  if (l != Layout::kNC4HW4 || s.size() < 2) return elementCount(s);
  Shape padded = s;
  padded[1] = (s[1] + 3) / 4 * 4;
  return elementCount(padded);
}

Tensor::Tensor(Shape shape, DataType dtype, Layout layout)
    : shape_(std::move(shape)), dtype_(dtype), layout_(layout) {}

size_t Tensor::byteSize() const {
  return static_cast<size_t>(physicalElementCount(shape_, layout_)) * dataTypeSize(dtype_);
}

Tensor hostAllocateUninitialised(Shape shape, DataType dtype, Layout layout) {
  Tensor t(std::move(shape), dtype, layout);
  const size_t bytes = t.byteSize();
  // 64-byte aligned so kernels can use aligned vector loads; at least 1 byte so data() != null.
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
  if (!p) throw std::bad_alloc();
  t.setHostData(p, std::shared_ptr<void>(p, [](void* q) { std::free(q); }));
  return t;
}

Tensor Tensor::hostAllocate(Shape shape, DataType dtype, Layout layout) {
  Tensor t = hostAllocateUninitialised(std::move(shape), dtype, layout);
  std::memset(t.data(), 0, t.byteSize());
  return t;
}

Tensor Tensor::hostWrap(void* data, Shape shape, DataType dtype, Layout layout) {
  Tensor t(std::move(shape), dtype, layout);
  t.setHostData(data);
  return t;
}

std::string Tensor::describe() const {
  return "'" + name_ + "' " + dataTypeName(dtype_) + " " + shapeToString(shape_) + " " +
         layoutName(layout_);
}

namespace {

// Offset of logical element (n, c, s) in a layout; N/C/S = batch, channels, spatial size.
inline int64_t offsetOf(Layout l, int64_t n, int64_t c, int64_t s, int64_t C, int64_t S) {
  switch (l) {
    case Layout::kNCHW: return (n * C + c) * S + s;
    case Layout::kNHWC: return (n * S + s) * C + c;
    case Layout::kNC4HW4: return ((n * ((C + 3) / 4) + c / 4) * S + s) * 4 + (c % 4);
  }
  return 0;
}

// Pixels per piece of an NCHW <-> NC4HW4 conversion: a 4-channel block is cut into pieces
// so that a 3-channel image (one block) still splits over threads.
constexpr int64_t kPiecePixels = 8192;

// NCHW -> NC4HW4 of pixels [i0, i1) of 4-channel block b. Four channel rows are interleaved
// in one pass, so each destination line is written once (the compiler vectorises the 4-way
// interleave); the padding lanes of a last partial block get zeros.
template <typename T>
void toBlocked(const T* src, T* dst, int64_t C, int64_t S, int64_t b, int64_t i0, int64_t i1) {
  static const T kZero = T();
  const int64_t blocks = (C + 3) / 4;
  const int64_t n = b / blocks, c0 = (b % blocks) * 4;
  const T* s = src + (n * C + c0) * S;
  T* __restrict d = dst + b * S * 4;
  if (c0 + 4 <= C) {
    const T* __restrict r0 = s;
    const T* __restrict r1 = s + S;
    const T* __restrict r2 = s + 2 * S;
    const T* __restrict r3 = s + 3 * S;
    for (int64_t i = i0; i < i1; ++i) {
      d[4 * i] = r0[i];
      d[4 * i + 1] = r1[i];
      d[4 * i + 2] = r2[i];
      d[4 * i + 3] = r3[i];
    }
    return;
  }
  const T* rows[4];
  int64_t step[4];  // 0 for a padding lane: it reads kZero again and again
  for (int j = 0; j < 4; ++j) {
    const bool real = c0 + j < C;
    rows[j] = real ? s + j * S : &kZero;
    step[j] = real ? 1 : 0;
  }
  for (int64_t i = i0; i < i1; ++i)
    for (int j = 0; j < 4; ++j) d[4 * i + j] = rows[j][i * step[j]];
}

// NC4HW4 -> NCHW of pixels [i0, i1) of block b: each source line read once.
template <typename T>
void fromBlocked(const T* src, T* dst, int64_t C, int64_t S, int64_t b, int64_t i0, int64_t i1) {
  const int64_t blocks = (C + 3) / 4;
  const int64_t n = b / blocks, c0 = (b % blocks) * 4;
  const T* __restrict s = src + b * S * 4;
  T* d = dst + (n * C + c0) * S;
  if (c0 + 4 <= C) {
    T* __restrict r0 = d;
    T* __restrict r1 = d + S;
    T* __restrict r2 = d + 2 * S;
    T* __restrict r3 = d + 3 * S;
    for (int64_t i = i0; i < i1; ++i) {
      r0[i] = s[4 * i];
      r1[i] = s[4 * i + 1];
      r2[i] = s[4 * i + 2];
      r3[i] = s[4 * i + 3];
    }
    return;
  }
  for (int64_t j = 0; c0 + j < C; ++j)
    for (int64_t i = i0; i < i1; ++i) d[j * S + i] = s[4 * i + j];
}

// Any other pair of layouts (NHWC), element by element.
template <typename T>
void convertTyped(const T* src, Layout ls, T* dst, Layout ld, int64_t N, int64_t C, int64_t S) {
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t s = 0; s < S; ++s)
        dst[offsetOf(ld, n, c, s, C, S)] = src[offsetOf(ls, n, c, s, C, S)];
}

// Batch, channels and spatial size of a rank >= 2 shape.
void splitShape(const Shape& s, int64_t* N, int64_t* C, int64_t* S) {
  *N = s[0];
  *C = s[1];
  *S = 1;
  for (size_t i = 2; i < s.size(); ++i) *S *= s[i];
}

bool isBlockedPair(const Tensor& src, const Tensor& dst) {
  if (src.rank() < 2) return false;
  return (src.layout() == Layout::kNCHW && dst.layout() == Layout::kNC4HW4) ||
         (src.layout() == Layout::kNC4HW4 && dst.layout() == Layout::kNCHW);
}

// Calls f(T()) with T the unsigned integer type of an element's size: a layout change moves
// elements whatever they hold. Other sizes (none today) do nothing.
template <typename F>
void withElementType(size_t bytes, F&& f) {
  switch (bytes) {
    case 1: f(uint8_t()); break;
    case 2: f(uint16_t()); break;
    case 4: f(uint32_t()); break;
    case 8: f(uint64_t()); break;
    default: break;
  }
}

template <typename T>
void convertPiecesTyped(const Tensor& src, Tensor& dst, int64_t begin, int64_t end) {
  int64_t N, C, S;
  splitShape(src.shape(), &N, &C, &S);
  const int64_t perBlock = (S + kPiecePixels - 1) / kPiecePixels;
  for (int64_t p = begin; p < end; ++p) {
    const int64_t b = p / perBlock, i0 = (p % perBlock) * kPiecePixels, i1 = std::min(S, i0 + kPiecePixels);
    if (dst.layout() == Layout::kNC4HW4) toBlocked(src.data<T>(), dst.data<T>(), C, S, b, i0, i1);
    else fromBlocked(src.data<T>(), dst.data<T>(), C, S, b, i0, i1);
  }
}

template <typename T>
void convertBandTyped(const Tensor& src, Tensor& dst, int64_t n, int64_t i0, int64_t i1) {
  int64_t N, C, S;
  splitShape(src.shape(), &N, &C, &S);
  const int64_t blocks = (C + 3) / 4;
  for (int64_t b = n * blocks; b < (n + 1) * blocks; ++b) {
    if (dst.layout() == Layout::kNC4HW4) toBlocked(src.data<T>(), dst.data<T>(), C, S, b, i0, i1);
    else fromBlocked(src.data<T>(), dst.data<T>(), C, S, b, i0, i1);
  }
}

}  // namespace

void convertLayoutBand(const Tensor& src, Tensor& dst, int64_t n, int64_t i0, int64_t i1) {
  if (!isBlockedPair(src, dst)) return;
  withElementType(dataTypeSize(src.dtype()),
                  [&](auto t) { convertBandTyped<decltype(t)>(src, dst, n, i0, i1); });
}

int64_t layoutPieces(const Tensor& src, const Tensor& dst) {
  if (!isBlockedPair(src, dst)) return 0;
  int64_t N, C, S;
  splitShape(src.shape(), &N, &C, &S);
  return N * ((C + 3) / 4) * ((S + kPiecePixels - 1) / kPiecePixels);
}

void convertLayoutPieces(const Tensor& src, Tensor& dst, int64_t begin, int64_t end) {
  withElementType(dataTypeSize(src.dtype()),
                  [&](auto t) { convertPiecesTyped<decltype(t)>(src, dst, begin, end); });
}

void convertLayout(const Tensor& src, Tensor& dst) {
  if (src.layout() == dst.layout() || src.rank() < 2) {
    std::memcpy(dst.data(), src.data(), std::min(src.byteSize(), dst.byteSize()));
    return;
  }
  if (isBlockedPair(src, dst)) {
    convertLayoutPieces(src, dst, 0, layoutPieces(src, dst));
    return;
  }
  if (dst.layout() == Layout::kNC4HW4) std::memset(dst.data(), 0, dst.byteSize());
  int64_t N, C, S;
  splitShape(src.shape(), &N, &C, &S);
  withElementType(dataTypeSize(src.dtype()), [&](auto t) {
    using T = decltype(t);
    convertTyped(src.data<T>(), src.layout(), dst.data<T>(), dst.layout(), N, C, S);
  });
}

namespace {

template <typename T>
double loadAsDouble(const void* p, int64_t i) { return static_cast<double>(static_cast<const T*>(p)[i]); }

double loadElement(DataType t, const void* p, int64_t i) {
  switch (t) {
    case DataType::kF32: return loadAsDouble<float>(p, i);
    case DataType::kF64: return loadAsDouble<double>(p, i);
    case DataType::kF16: return halfToFloat(static_cast<const uint16_t*>(p)[i]);
    case DataType::kBF16: return bfloat16ToFloat(static_cast<const uint16_t*>(p)[i]);
    case DataType::kI8: return loadAsDouble<int8_t>(p, i);
    case DataType::kI16: return loadAsDouble<int16_t>(p, i);
    case DataType::kI32: return loadAsDouble<int32_t>(p, i);
    case DataType::kI64: return loadAsDouble<int64_t>(p, i);
    case DataType::kU8: return loadAsDouble<uint8_t>(p, i);
    case DataType::kU16: return loadAsDouble<uint16_t>(p, i);
    case DataType::kU32: return loadAsDouble<uint32_t>(p, i);
    case DataType::kU64: return loadAsDouble<uint64_t>(p, i);
    case DataType::kBool: return static_cast<const bool*>(p)[i] ? 1.0 : 0.0;
    default: return 0.0;
  }
}

// A double to an integer as NumPy does on x86: through int64 (saturated, NaN to 0), then
// wrapped to the narrower type (-1 becomes 255 as uint8). C++ leaves out-of-range float to
// integer conversions undefined, and ONNX leaves them unspecified.
int64_t toInt64(double v) { return saturatingInt64(v); }

uint64_t toUInt64(double v) {
  if (v >= 9.2233720368547758e18 && v < 1.8446744073709552e19) return static_cast<uint64_t>(v);
  if (v >= 1.8446744073709552e19) return UINT64_MAX;
  return static_cast<uint64_t>(saturatingInt64(v));
}

void storeElement(DataType t, void* p, int64_t i, double v) {
  switch (t) {
    case DataType::kF32: static_cast<float*>(p)[i] = static_cast<float>(v); break;
    case DataType::kF64: static_cast<double*>(p)[i] = v; break;
    case DataType::kF16: static_cast<uint16_t*>(p)[i] = floatToHalf(static_cast<float>(v)); break;
    case DataType::kBF16: static_cast<uint16_t*>(p)[i] = floatToBFloat16(static_cast<float>(v)); break;
    case DataType::kI8: static_cast<int8_t*>(p)[i] = static_cast<int8_t>(toInt64(v)); break;
    case DataType::kI16: static_cast<int16_t*>(p)[i] = static_cast<int16_t>(toInt64(v)); break;
    case DataType::kI32: static_cast<int32_t*>(p)[i] = static_cast<int32_t>(toInt64(v)); break;
    case DataType::kI64: static_cast<int64_t*>(p)[i] = toInt64(v); break;
    case DataType::kU8: static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(toInt64(v)); break;
    case DataType::kU16: static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(toInt64(v)); break;
    case DataType::kU32: static_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(toInt64(v)); break;
    case DataType::kU64: static_cast<uint64_t*>(p)[i] = toUInt64(v); break;
    case DataType::kBool: static_cast<bool*>(p)[i] = v != 0.0; break;
    default: break;
  }
}

}  // namespace

// Through double: exact for every pair except 64-bit integers beyond 2^53, which only
// matter for ids, and those are copied exactly when the types match.
bool convertDataType(const Tensor& src, Tensor& dst) {
  if (dataTypeSize(src.dtype()) == 0 || dataTypeSize(dst.dtype()) == 0) return false;
  const int64_t n = src.elementCount();
  if (src.dtype() == dst.dtype()) {
    std::memcpy(dst.data(), src.data(), static_cast<size_t>(n) * dataTypeSize(src.dtype()));
    return true;
  }
  for (int64_t i = 0; i < n; ++i) storeElement(dst.dtype(), dst.data(), i, loadElement(src.dtype(), src.data(), i));
  return true;
}

Nc4Geometry nc4Geometry(const Shape& s) {
  Nc4Geometry g;
  const int r = static_cast<int>(s.size());
  if (r >= 1) g.n = s[0];
  if (r >= 2) g.c = s[1];
  if (r == 3) g.w = s[2];
  if (r >= 4) {
    g.h = s[2];
    g.w = 1;
    for (int d = 3; d < r; ++d) g.w *= s[d];
  }
  return g;
}

}  // namespace tessera
