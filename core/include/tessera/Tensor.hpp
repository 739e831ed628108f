// Tensor: shape, data type and layout, plus where its bytes live (host memory, or an object
// owned by a backend). Copying a Tensor shares its storage.
#pragma once
#include <memory>
#include <string>

#include "tessera/DataType.hpp"
#include "tessera/Shape.hpp"

namespace tessera {

class Backend;

enum class Layout : uint8_t {
  kNCHW,    // plain row-major in the order of the shape (the only layout hosts see)
  kNHWC,    // channels innermost (rank >= 3)
  kNC4HW4,  // [N, ceil(C/4), spatial..., 4]: channels padded to 4 and packed innermost
};
const char* layoutName(Layout l);

// Physical element count of a shape in a layout (NC4HW4 pads channels up to a multiple of 4).
int64_t physicalElementCount(const Shape& s, Layout l);

// An NC4HW4 tensor as a 2-D grid of 4-channel pixels, as the GPU backends store it (image2d /
// storage image): pixel x = (c/4)*W + w, y = n*H + h. Rank 2: [N, C] (H = W = 1); rank 3:
// [N, C, W]; rank 4: [N, C, H, W]; rank 5+: the trailing dimensions folded into W.
struct Nc4Geometry {
  int64_t n = 1, c = 1, h = 1, w = 1;
  int64_t c4() const { return (c + 3) / 4; }
  int64_t width() const { return c4() * w; }
  int64_t height() const { return n * h; }
};
Nc4Geometry nc4Geometry(const Shape& s);

class Tensor {
 public:
  Tensor() = default;
  Tensor(Shape shape, DataType dtype, Layout layout = Layout::kNCHW);

  // A host tensor that owns fresh zeroed memory.
  static Tensor hostAllocate(Shape shape, DataType dtype, Layout layout = Layout::kNCHW);
  // A host tensor that wraps memory the caller keeps alive.
  static Tensor hostWrap(void* data, Shape shape, DataType dtype, Layout layout = Layout::kNCHW);

  const std::string& name() const { return name_; }
  void setName(std::string n) { name_ = std::move(n); }
  const Shape& shape() const { return shape_; }
  int64_t dim(int i) const { return shape_[i < 0 ? i + rank() : i]; }
  int rank() const { return static_cast<int>(shape_.size()); }
  DataType dtype() const { return dtype_; }
  Layout layout() const { return layout_; }
  int64_t elementCount() const { return tessera::elementCount(shape_); }
  size_t byteSize() const;  // physical bytes in this layout
  void reshape(Shape s) { shape_ = std::move(s); }
  void setDataType(DataType t) { dtype_ = t; }
  void setLayout(Layout l) { layout_ = l; }

  // Host memory; nullptr when the tensor lives on a device or is not yet allocated.
  void* data() const { return data_; }
  template <typename T> T* data() const { return static_cast<T*>(data_); }
  void setHostData(void* p, std::shared_ptr<void> owner = nullptr) {
    data_ = p;
    owner_ = std::move(owner);
  }
  // What keeps the host memory alive; nullptr when the tensor does not own it (an arena slot).
  const std::shared_ptr<void>& hostOwner() const { return owner_; }

  // Device storage: the backend that owns it and an opaque handle of that backend's.
  Backend* backend() const { return backend_; }
  void* deviceHandle() const { return handle_; }
  void setDevice(Backend* b, void* handle) { backend_ = b; handle_ = handle; }

  // Known at resize time (an initializer, or folded from constants): kernels may pre-pack it.
  bool isConstant() const { return constant_; }
  void setConstant(bool c) { constant_ = c; }

  std::string describe() const;  // "'x' f32 1x3x5x5 NCHW"

 private:
  std::string name_;
  Shape shape_;
  DataType dtype_ = DataType::kF32;
  Layout layout_ = Layout::kNCHW;
  void* data_ = nullptr;
  std::shared_ptr<void> owner_;
  Backend* backend_ = nullptr;
  void* handle_ = nullptr;
  bool constant_ = false;
};

// Host-side layout conversion between any two layouts (same shape and dtype).
void convertLayout(const Tensor& src, Tensor& dst);
// NCHW <-> NC4HW4 in independent pieces, for splitting one conversion over threads: how
// many pieces (0 for any other pair of layouts; a piece is up to 8192 pixels of one
// 4-channel block), and the conversion of pieces [begin, end) alone.
int64_t layoutPieces(const Tensor& src, const Tensor& dst);
void convertLayoutPieces(const Tensor& src, Tensor& dst, int64_t begin, int64_t end);
// NCHW <-> NC4HW4 of pixels [i0, i1) of image n, every channel: a band of rows, for threads
// that each take a band of the image (a CPU backend splitting its convs by pixels).
void convertLayoutBand(const Tensor& src, Tensor& dst, int64_t n, int64_t i0, int64_t i1);
// Host-side data type conversion (same shape, plain layout). False if not convertible.
bool convertDataType(const Tensor& src, Tensor& dst);

}  // namespace tessera
