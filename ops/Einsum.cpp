#include "ops/Einsum.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace tessera {

namespace {

bool isLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// One term with "..." replaced by '.'; fails on other characters or a second ellipsis.
Status parseTerm(const Node& node, const std::string& raw, std::string* out) {
  std::string term;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (isLetter(c)) {
      term += c;
    } else if (c == '.') {
      if (raw.compare(i, 3, "...") != 0)
        return Status::invalid(node.label() + ": equation term '" + raw + "' has a '.' that is not part of '...'");
      if (term.find('.') != std::string::npos)
        return Status::invalid(node.label() + ": equation term '" + raw + "' has more than one '...'");
      term += '.';
      i += 2;
    } else {
      return Status::invalid(node.label() + ": equation term '" + raw + "' has the character '" + std::string(1, c) +
                             "' (only letters, '...', ',' and '->' are allowed)");
    }
  }
  *out = term;
  return Status::ok();
}

}  // namespace

Status EinsumParams::parse(const Node& node, EinsumParams* out) {
  if (!node.attrs.has("equation")) return Status::invalid(node.label() + ": the 'equation' attribute is required");
  std::string eq;
  for (char c : node.attrs.getString("equation", "")) if (!std::isspace(static_cast<unsigned char>(c))) eq += c;
  EinsumParams p;
  const size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  if (arrow != std::string::npos) {
    p.explicitOutput = true;
    TESSERA_RETURN_IF_ERROR(parseTerm(node, eq.substr(arrow + 2), &p.output));
  }
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    std::string term;
    TESSERA_RETURN_IF_ERROR(parseTerm(node, lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start), &term));
    p.terms.push_back(term);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::string used;
  for (const std::string& t : p.terms) used += t;
  for (size_t i = 0; i < p.output.size(); ++i) {
    const char c = p.output[i];
    if (p.output.find(c, i + 1) != std::string::npos)
      return Status::invalid(node.label() + ": output letter '" + std::string(1, c) + "' appears twice");
    if (c != '.' && used.find(c) == std::string::npos)
      return Status::invalid(node.label() + ": output letter '" + std::string(1, c) + "' is not in any input");
  }
  *out = p;
  return Status::ok();
}

Status resolveEinsum(const Node& node, const EinsumParams& p, const std::vector<Shape>& shapes, EinsumDims* out) {
  const size_t ops = p.terms.size();
  if (shapes.size() != ops)
    return Status::invalid(node.label() + ": the equation has " + std::to_string(ops) + " operand(s) but the node has " +
                           std::to_string(shapes.size()) + " input(s)");
  // How many dims each operand's "..." stands for; the widest sets the ellipsis letters.
  std::vector<int64_t> ellipsis(ops, 0);
  int64_t E = 0;
  for (size_t i = 0; i < ops; ++i) {
    const int64_t named = static_cast<int64_t>(p.terms[i].size()) - (p.terms[i].find('.') != std::string::npos);
    const int64_t rank = static_cast<int64_t>(shapes[i].size());
    const bool hasEllipsis = p.terms[i].find('.') != std::string::npos;
    if (hasEllipsis ? rank < named : rank != named)
      return Status::invalid(node.label() + ": operand " + std::to_string(i) + " has shape " + shapeToString(shapes[i]) +
                             " but its subscripts '" + p.terms[i] + "' name " + std::to_string(named) + " dims");
    ellipsis[i] = rank - named;
    E = std::max(E, ellipsis[i]);
  }
  std::map<char, int> ids;
  std::vector<char> names(static_cast<size_t>(E), '.');
  for (const std::string& t : p.terms)
    for (char c : t)
      if (c != '.' && !ids.count(c)) {
        ids[c] = static_cast<int>(names.size());
        names.push_back(c);
      }
  EinsumDims d;
  d.letters = static_cast<int>(names.size());
  d.size.assign(names.size(), -1);
  d.present.assign(ops, std::vector<bool>(names.size(), false));
  d.strides.assign(ops, std::vector<int64_t>(names.size(), 0));
  std::vector<int> uses(names.size(), 0);
  for (size_t i = 0; i < ops; ++i) {
    std::vector<int> axes;  // the letter of each axis
    for (char c : p.terms[i]) {
      if (c == '.') {
        for (int64_t e = 0; e < ellipsis[i]; ++e) axes.push_back(static_cast<int>(E - ellipsis[i] + e));
      } else {
        axes.push_back(ids[c]);
        ++uses[ids[c]];
      }
    }
    int64_t stride = 1;
    for (size_t a = axes.size(); a-- > 0;) {
      const int l = axes[a];
      const int64_t extent = shapes[i][a];
      int64_t& size = d.size[l];
      if (size != -1 && size != 1 && extent != 1 && extent != size)
        return Status::invalid(node.label() + ": " +
                               (names[l] == '.' ? std::string("the '...' dims") : "letter '" + std::string(1, names[l]) + "'") +
                               " of operand " + std::to_string(i) + " " + shapeToString(shapes[i]) + " has extent " +
                               std::to_string(extent) + " where another has " + std::to_string(size));
      if (size == -1 || size == 1) size = extent;
      d.present[i][l] = true;
      if (extent != 1) d.strides[i][l] += stride;
      stride *= extent;
    }
  }
  if (p.explicitOutput) {
    bool ellipsisOut = false;
    for (char c : p.output) {
      if (c == '.') {
        ellipsisOut = true;
        for (int64_t e = 0; e < E; ++e) d.output.push_back(static_cast<int>(e));
      } else {
        d.output.push_back(ids[c]);
      }
    }
    if (E > 0 && !ellipsisOut)
      return Status::invalid(node.label() + ": the inputs' '...' stands for " + std::to_string(E) +
                             " dim(s) but the output has no '...'");
  } else {
    for (int64_t e = 0; e < E; ++e) d.output.push_back(static_cast<int>(e));
    std::string once;
    for (const auto& [c, id] : ids) if (uses[id] == 1) once += c;  // std::map: ASCII order
    for (char c : once) d.output.push_back(ids[c]);
  }
  for (int l : d.output) d.outputShape.push_back(d.size[l]);
  *out = d;
  return Status::ok();
}

}  // namespace tessera
