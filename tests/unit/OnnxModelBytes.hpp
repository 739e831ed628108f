// Builds serialized ONNX protobufs (ModelProto, TensorProto...) in tests without the
// generated classes: a few lines of protobuf wire format are enough for small models.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tessera {
namespace test {

// One protobuf message under construction; fields are appended in call order.
class ProtoBytes {
 public:
  ProtoBytes& varint(int field, uint64_t v) {
    key(field, 0);
    putVarint(v);
    return *this;
  }
  ProtoBytes& fixed32(int field, float v) {
    key(field, 5);
    char b[4];
    std::memcpy(b, &v, 4);
    bytes_.append(b, 4);
    return *this;
  }
  ProtoBytes& bytes(int field, const std::string& s) {
    key(field, 2);
    putVarint(s.size());
    bytes_ += s;
    return *this;
  }
  ProtoBytes& message(int field, const ProtoBytes& m) { return bytes(field, m.str()); }
  const std::string& str() const { return bytes_; }

 private:
  void key(int field, int wireType) { putVarint((uint64_t(field) << 3) | uint64_t(wireType)); }
  void putVarint(uint64_t v) {
    while (v >= 0x80) {
      bytes_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    bytes_ += static_cast<char>(v);
  }
  std::string bytes_;
};

// ONNX field numbers and enum values used below (onnx.proto).
enum OnnxElemType { kOnnxFloat = 1, kOnnxInt64 = 7, kOnnxString = 8, kOnnxBool = 9 };

inline ProtoBytes floatTensorProto(const std::string& name, const std::vector<int64_t>& dims,
                                   const std::vector<float>& values) {
  ProtoBytes t;
  for (int64_t d : dims) t.varint(1, static_cast<uint64_t>(d));
  t.varint(2, kOnnxFloat);
  t.bytes(8, name);
  t.bytes(9, std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
  return t;
}

// dims: -1 becomes a named (dim_param) dimension.
inline ProtoBytes valueInfoProto(const std::string& name, int elemType,
                                 const std::vector<int64_t>& dims) {
  ProtoBytes shape;
  for (int64_t d : dims) {
    ProtoBytes dim;
    if (d < 0) dim.bytes(2, "N");
    else dim.varint(1, static_cast<uint64_t>(d));
    shape.message(1, dim);
  }
  ProtoBytes tensorType;
  tensorType.varint(1, static_cast<uint64_t>(elemType)).message(2, shape);
  ProtoBytes type;
  type.message(1, tensorType);
  ProtoBytes v;
  v.bytes(1, name).message(2, type);
  return v;
}

inline ProtoBytes intAttribute(const std::string& name, int64_t v) {
  ProtoBytes a;
  a.bytes(1, name).varint(3, static_cast<uint64_t>(v)).varint(20, 2);
  return a;
}
inline ProtoBytes floatAttribute(const std::string& name, float v) {
  ProtoBytes a;
  a.bytes(1, name).fixed32(2, v).varint(20, 1);
  return a;
}
inline ProtoBytes intsAttribute(const std::string& name, const std::vector<int64_t>& v) {
  ProtoBytes a;
  a.bytes(1, name);
  for (int64_t x : v) a.varint(8, static_cast<uint64_t>(x));
  a.varint(20, 7);
  return a;
}
inline ProtoBytes stringAttribute(const std::string& name, const std::string& v) {
  ProtoBytes a;
  a.bytes(1, name).bytes(4, v).varint(20, 3);
  return a;
}
inline ProtoBytes tensorAttribute(const std::string& name, const ProtoBytes& tensor) {
  ProtoBytes a;
  a.bytes(1, name).message(5, tensor).varint(20, 4);
  return a;
}
inline ProtoBytes graphAttribute(const std::string& name, const ProtoBytes& graph) {
  ProtoBytes a;
  a.bytes(1, name).message(6, graph).varint(20, 5);
  return a;
}

inline ProtoBytes nodeProto(const std::string& opType, const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs, const std::string& name = "",
                            const std::vector<ProtoBytes>& attributes = {},
                            const std::string& domain = "") {
  ProtoBytes n;
  for (const auto& i : inputs) n.bytes(1, i);
  for (const auto& o : outputs) n.bytes(2, o);
  if (!name.empty()) n.bytes(3, name);
  n.bytes(4, opType);
  for (const auto& a : attributes) n.message(5, a);
  if (!domain.empty()) n.bytes(7, domain);
  return n;
}

struct GraphParts {
  std::vector<ProtoBytes> nodes, initializers, inputs, outputs;
};

inline ProtoBytes graphProto(const GraphParts& p) {
  ProtoBytes g;
  for (const auto& n : p.nodes) g.message(1, n);
  g.bytes(2, "test_graph");
  for (const auto& t : p.initializers) g.message(5, t);
  for (const auto& i : p.inputs) g.message(11, i);
  for (const auto& o : p.outputs) g.message(12, o);
  return g;
}

// A model importing the default domain at `opset` (and any extra domains at version 1).
inline std::string modelBytes(const GraphParts& parts, int opset = 13,
                              const std::vector<std::string>& extraDomains = {}) {
  ProtoBytes m;
  m.varint(1, 8);  // ir_version
  m.message(7, graphProto(parts));
  ProtoBytes def;
  def.bytes(1, "").varint(2, static_cast<uint64_t>(opset));
  m.message(8, def);
  for (const auto& d : extraDomains) {
    ProtoBytes o;
    o.bytes(1, d).varint(2, 1);
    m.message(8, o);
  }
  return m.str();
}

}  // namespace test
}  // namespace tessera
