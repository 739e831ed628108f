// Node attributes, readable by name and kind (ONNX's attribute model).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/Tensor.hpp"

namespace tessera {

class Graph;

struct Attribute {
  enum class Kind { kInt, kFloat, kString, kInts, kFloats, kStrings, kTensor, kGraph };
  Kind kind = Kind::kInt;
  int64_t i = 0;
  float f = 0.f;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<std::string> strings;
  Tensor t;
  std::shared_ptr<const Graph> g;  // kGraph: an If branch, a Loop or Scan body
};

class Attributes {
 public:
  bool has(const std::string& name) const { return map_.count(name) != 0; }
  const Attribute* find(const std::string& name) const;
  void set(const std::string& name, Attribute a) { map_[name] = std::move(a); }
  void setInt(const std::string& name, int64_t v);
  void setFloat(const std::string& name, float v);
  void setString(const std::string& name, std::string v);
  void setInts(const std::string& name, std::vector<int64_t> v);
  void setFloats(const std::string& name, std::vector<float> v);
  void setTensor(const std::string& name, Tensor t);

  int64_t getInt(const std::string& name, int64_t def) const;
  float getFloat(const std::string& name, float def) const;
  std::string getString(const std::string& name, const std::string& def) const;
  std::vector<int64_t> getInts(const std::string& name, std::vector<int64_t> def = {}) const;
  std::vector<float> getFloats(const std::string& name, std::vector<float> def = {}) const;
  const Graph* getGraph(const std::string& name) const;  // null when absent or not a graph
  const std::map<std::string, Attribute>& all() const { return map_; }

 private:
  std::map<std::string, Attribute> map_;
};

}  // namespace tessera
