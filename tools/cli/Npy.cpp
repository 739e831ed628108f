// The .npy header is a Python dict literal: {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }. This reads just that grammar (strings, True/False, int tuples).
#include "tools/cli/Npy.hpp"

#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace tessera {
namespace cli {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr int64_t kMaxElements = int64_t(1) << 40;

struct DescrEntry {
  const char* code;  // type code without the byte-order character
  DataType dtype;
};
const DescrEntry kDescrs[] = {
    {"f4", DataType::kF32}, {"f2", DataType::kF16}, {"f8", DataType::kF64},
    {"i1", DataType::kI8},  {"i2", DataType::kI16}, {"i4", DataType::kI32},
    {"i8", DataType::kI64}, {"u1", DataType::kU8},  {"u2", DataType::kU16},
    {"u4", DataType::kU32}, {"u8", DataType::kU64}, {"b1", DataType::kBool},
};

// A parsed header value: a string, a bool, or a tuple of ints.
struct HeaderValue {
  enum Kind { kString, kBool, kTuple } kind = kString;
  std::string s;
  bool b = false;
  std::vector<int64_t> ints;
};

class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : t_(text) {}

  bool parse(std::map<std::string, HeaderValue>* out, std::string* why) {
    skipSpace();
    if (!eat('{')) return fail("it does not start with '{'", why);
    for (;;) {
      skipSpace();
      if (eat('}')) return true;
      std::string key;
      if (!readString(&key)) return fail("expected a quoted key", why);
      skipSpace();
      if (!eat(':')) return fail("expected ':' after '" + key + "'", why);
      skipSpace();
      HeaderValue v;
      if (!readValue(&v)) return fail("cannot read the value of '" + key + "'", why);
      (*out)[key] = v;
      skipSpace();
      if (eat(',')) continue;
      skipSpace();
      if (eat('}')) return true;
      return fail("expected ',' or '}'", why);
    }
  }

 private:
  bool fail(const std::string& m, std::string* why) {
    *why = m;
    return false;
  }
  void skipSpace() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  bool eat(char c) {
    if (p_ < t_.size() && t_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool readString(std::string* s) {
    if (p_ >= t_.size() || (t_[p_] != '\'' && t_[p_] != '"')) return false;
    const char q = t_[p_++];
    const size_t end = t_.find(q, p_);
    if (end == std::string::npos) return false;
    *s = t_.substr(p_, end - p_);
    p_ = end + 1;
    return true;
  }
  bool readWord(const char* w) {
    const size_t n = std::strlen(w);
    if (t_.compare(p_, n, w) != 0) return false;
    p_ += n;
    return true;
  }
  bool readInt(int64_t* v) {
    const size_t start = p_;
    while (p_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[p_]))) ++p_;
    if (p_ == start || p_ - start > 15) return false;  // also rules out overflow
    *v = std::stoll(t_.substr(start, p_ - start));
    if (p_ < t_.size() && t_[p_] == 'L') ++p_;  // Python 2 long suffix
    return true;
  }
  bool readValue(HeaderValue* v) {
    if (readString(&v->s)) {
      v->kind = HeaderValue::kString;
      return true;
    }
    if (readWord("True") || readWord("False")) {
      v->kind = HeaderValue::kBool;
      v->b = t_[p_ - 1] == 'e' && t_[p_ - 2] == 'u';  // "True", not "False"
      return true;
    }
    if (!eat('(')) return false;
    v->kind = HeaderValue::kTuple;
    for (;;) {
      skipSpace();
      if (eat(')')) return true;
      int64_t d;
      if (!readInt(&d)) return false;
      v->ints.push_back(d);
      skipSpace();
      if (eat(',')) continue;
      skipSpace();
      return eat(')');
    }
  }

  const std::string& t_;
  size_t p_ = 0;
};

Status parseDescr(const std::string& path, const std::string& descr, DataType* out) {
  if (descr.size() == 3) {
    const char order = descr[0];
    const std::string code = descr.substr(1);
    for (const DescrEntry& e : kDescrs) {
      if (code != e.code) continue;
      const bool singleByte = dataTypeSize(e.dtype) == 1;
      if (order == '>' && !singleByte) {
        return Status::unsupported(path + ": big-endian data ('" + descr +
                                   "') is not supported; save it little-endian");
      }
      if (order == '<' || order == '=' || order == '|' || order == '>') {
        *out = e.dtype;
        return Status::ok();
      }
    }
  }
  return Status::unsupported(path + ": dtype '" + descr + "' is not supported (use one of "
                             "float32, float16, float64, int8..int64, uint8..uint64, bool)");
}

const char* descrOf(DataType t) {
  switch (t) {
    case DataType::kF32: return "<f4";
    case DataType::kF16: return "<f2";
    case DataType::kF64: return "<f8";
    case DataType::kI8: return "|i1";
    case DataType::kI16: return "<i2";
    case DataType::kI32: return "<i4";
    case DataType::kI64: return "<i8";
    case DataType::kU8: return "|u1";
    case DataType::kU16: return "<u2";
    case DataType::kU32: return "<u4";
    case DataType::kU64: return "<u8";
    case DataType::kBool: return "|b1";
    default: return nullptr;
  }
}

}  // namespace

Status readNpy(const std::string& path, Tensor* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::notFound("cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parseNpy(ss.str(), path, out);
}

Status parseNpy(const std::string& bytes, const std::string& path, Tensor* out) {
  if (bytes.size() < kMagicSize + 4 || bytes.compare(0, kMagicSize, kMagic, kMagicSize) != 0) {
    return Status::invalid(path + ": not a .npy file (bad magic)");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen = 0;
  size_t headerStart = 0;
  const auto byteAt = [&](size_t i) { return static_cast<size_t>(static_cast<unsigned char>(bytes[i])); };
  if (major == 1) {
    headerLen = byteAt(8) | (byteAt(9) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Status::invalid(path + ": truncated .npy header");
    headerLen = byteAt(8) | (byteAt(9) << 8) | (byteAt(10) << 16) | (byteAt(11) << 24);
    headerStart = 12;
  } else {
    return Status::unsupported(path + ": .npy format version " + std::to_string(major) +
                               " is not supported");
  }
  if (headerStart + headerLen > bytes.size()) {
    return Status::invalid(path + ": truncated .npy header (it says " + std::to_string(headerLen) +
                           " bytes)");
  }
  std::map<std::string, HeaderValue> header;
  std::string why;
  if (!HeaderParser(bytes.substr(headerStart, headerLen)).parse(&header, &why)) {
    return Status::invalid(path + ": malformed .npy header: " + why);
  }
  const auto descr = header.find("descr");
  const auto fortran = header.find("fortran_order");
  const auto shape = header.find("shape");
  if (descr == header.end() || descr->second.kind != HeaderValue::kString ||
      fortran == header.end() || fortran->second.kind != HeaderValue::kBool ||
      shape == header.end() || shape->second.kind != HeaderValue::kTuple) {
    return Status::invalid(path + ": malformed .npy header: it needs 'descr' (a string), "
                           "'fortran_order' (True/False) and 'shape' (a tuple)");
  }
  DataType dtype;
  TESSERA_RETURN_IF_ERROR(parseDescr(path, descr->second.s, &dtype));
  const Shape dims = shape->second.ints;
  if (fortran->second.b && dims.size() > 1) {
    return Status::unsupported(path + ": Fortran-ordered arrays are not supported; save it "
                               "with numpy.ascontiguousarray");
  }
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d != 0 && count > kMaxElements / d) {
      return Status::invalid(path + ": shape " + shapeToString(dims) + " is too large");
    }
    count *= d;
  }
  const size_t dataBytes = static_cast<size_t>(count) * dataTypeSize(dtype);
  const size_t present = bytes.size() - headerStart - headerLen;
  if (present != dataBytes) {
    std::ostringstream m;
    m << path << ": the header says " << dataTypeName(dtype) << " " << shapeToString(dims)
      << " (" << dataBytes << " bytes of data) but the file holds " << present << " bytes";
    return Status::invalid(m.str());
  }
  Tensor t = Tensor::hostAllocate(dims, dtype);
  if (dataBytes) std::memcpy(t.data(), bytes.data() + headerStart + headerLen, dataBytes);
  if (dtype == DataType::kBool) {
    uint8_t* b = t.data<uint8_t>();
    for (int64_t i = 0; i < count; ++i) b[i] = b[i] != 0;
  }
  *out = std::move(t);
  return Status::ok();
}

Status writeNpy(const std::string& path, const Tensor& t) {
  if (t.data() == nullptr) return Status::invalid("cannot write '" + path + "': no host data");
  if (t.layout() != Layout::kNCHW) {
    return Status::invalid("cannot write '" + path + "': tensor is in layout " +
                           layoutName(t.layout()));
  }
  Tensor src = t;
  if (t.dtype() == DataType::kBF16) {
    src = Tensor::hostAllocate(t.shape(), DataType::kF32);
    for (int64_t i = 0; i < t.elementCount(); ++i) {
      src.data<float>()[i] = bfloat16ToFloat(t.data<uint16_t>()[i]);
    }
  }
  const char* descr = descrOf(src.dtype());
  if (!descr) {
    return Status::unsupported("cannot write '" + path + "': data type " +
                               dataTypeName(src.dtype()) + " has no .npy equivalent");
  }
  // Python tuple syntax: (), (5,), (2, 3).
  std::string shape = "(";
  for (size_t i = 0; i < src.shape().size(); ++i) {
    shape += (i ? ", " : "") + std::to_string(src.shape()[i]);
  }
  shape += src.shape().size() == 1 ? ",)" : ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so the data starts 64-byte aligned; the header ends with '\n'.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  const size_t len = header.size();
  if (len > 0xffff) return Status::unsupported("cannot write '" + path + "': shape too long");

  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return Status::notFound("cannot create '" + path + "': " + std::strerror(errno));
  f.write(kMagic, kMagicSize);
  const char version[4] = {1, 0, static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  f.write(version, 4);
  f.write(header.data(), static_cast<std::streamsize>(len));
  f.write(static_cast<const char*>(src.data()),
          static_cast<std::streamsize>(src.elementCount() * dataTypeSize(src.dtype())));
  if (!f) return Status::invalid("cannot write '" + path + "': write failed");
  return Status::ok();
}

}  // namespace cli
}  // namespace tessera
