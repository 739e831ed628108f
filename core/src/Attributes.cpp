#include "tessera/Attributes.hpp"

namespace tessera {

const Attribute* Attributes::find(const std::string& name) const {
  auto it = map_.find(name);
  return it == map_.end() ? nullptr : &it->second;
}

void Attributes::setInt(const std::string& name, int64_t v) {
  Attribute a; a.kind = Attribute::Kind::kInt; a.i = v; map_[name] = std::move(a);
}
void Attributes::setFloat(const std::string& name, float v) {
  Attribute a; a.kind = Attribute::Kind::kFloat; a.f = v; map_[name] = std::move(a);
}
void Attributes::setString(const std::string& name, std::string v) {
  Attribute a; a.kind = Attribute::Kind::kString; a.s = std::move(v); map_[name] = std::move(a);
}
void Attributes::setInts(const std::string& name, std::vector<int64_t> v) {
  Attribute a; a.kind = Attribute::Kind::kInts; a.ints = std::move(v); map_[name] = std::move(a);
}
void Attributes::setFloats(const std::string& name, std::vector<float> v) {
  Attribute a; a.kind = Attribute::Kind::kFloats; a.floats = std::move(v); map_[name] = std::move(a);
}
void Attributes::setTensor(const std::string& name, Tensor t) {
  Attribute a; a.kind = Attribute::Kind::kTensor; a.t = std::move(t); map_[name] = std::move(a);
}

int64_t Attributes::getInt(const std::string& name, int64_t def) const {
  const Attribute* a = find(name);
  if (!a) return def;
  if (a->kind == Attribute::Kind::kFloat) return saturatingInt64(a->f);  // a malformed model
  return a->i;
}
float Attributes::getFloat(const std::string& name, float def) const {
  const Attribute* a = find(name);
  if (!a) return def;
  if (a->kind == Attribute::Kind::kInt) return static_cast<float>(a->i);
  return a->f;
}
std::string Attributes::getString(const std::string& name, const std::string& def) const {
  const Attribute* a = find(name);
  return a ? a->s : def;
}
std::vector<int64_t> Attributes::getInts(const std::string& name, std::vector<int64_t> def) const {
  const Attribute* a = find(name);
  if (!a) return def;
  if (a->kind == Attribute::Kind::kInt) return {a->i};
  return a->ints;
}
std::vector<float> Attributes::getFloats(const std::string& name, std::vector<float> def) const {
  const Attribute* a = find(name);
  if (!a) return def;
  if (a->kind == Attribute::Kind::kFloat) return {a->f};
  return a->floats;
}

const Graph* Attributes::getGraph(const std::string& name) const {
  const Attribute* a = find(name);
  return a && a->kind == Attribute::Kind::kGraph ? a->g.get() : nullptr;
}

}  // namespace tessera
