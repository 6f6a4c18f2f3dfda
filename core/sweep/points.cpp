// The sweep's grid: point numbering, the scenario of each point, and setting a value by JSON
// pointer.

#include "sweep/sweep.h"

namespace blis::sweep {

namespace {

// RFC 6901 unescaping of one reference token.
std::string unescape(const std::string& token) {
  std::string out;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size()) {
      out += token[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

std::vector<std::string> tokens_of(const std::string& pointer) {
  std::vector<std::string> out;
  std::size_t start = 1;
  while (start <= pointer.size()) {
    const std::size_t slash = pointer.find('/', start);
    const std::size_t end = slash == std::string::npos ? pointer.size() : slash;
    out.push_back(unescape(pointer.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

bool is_index(const std::string& t) {
  if (t.empty() || t.size() > 9) return false;
  for (char c : t) {
    if (c < '0' || c > '9') return false;
  }
  return t == "0" || t[0] != '0';
}

}  // namespace

std::size_t Sweep::points() const {
  if (axes.empty()) return 0;
  std::size_t n = 1;
  for (const Axis& a : axes) n *= a.steps();
  return n;
}

bool set_pointer(nlohmann::json& doc, const std::string& pointer, const nlohmann::json& value,
                 std::string* why) {
  const std::vector<std::string> tokens = tokens_of(pointer);
  nlohmann::json* node = &doc;
  std::string at;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    const bool last = i + 1 == tokens.size();
    if (node->is_object()) {
      if (last) {
        (*node)[t] = value;
        return true;
      }
      const auto it = node->find(t);
      if (it == node->end()) {
        *why = "the scenario has nothing at " + json_pointer_append(at, t) +
               " (the key's parent object must exist in the base)";
        return false;
      }
      node = &*it;
    } else if (node->is_array()) {
      if (!is_index(t) || std::stoul(t) >= node->size()) {
        *why = "the scenario has no element " + json_pointer_append(at, t) + " (the array has " +
               std::to_string(node->size()) + ")";
        return false;
      }
      nlohmann::json& child = (*node)[std::stoul(t)];
      if (last) {
        child = value;
        return true;
      }
      node = &child;
    } else {
      *why = "the scenario's " + (at.empty() ? std::string("/") : at) +
             " is not an object or array, so it has no " + json_pointer_append(at, t);
      return false;
    }
    at = json_pointer_append(at, t);
  }
  *why = "cannot replace the whole scenario";
  return false;
}

std::vector<std::size_t> coordinates(const Sweep& s, std::size_t index) {
  std::vector<std::size_t> c(s.axes.size(), 0);
  for (std::size_t k = s.axes.size(); k-- > 0;) {
    const std::size_t n = s.axes[k].steps();
    c[k] = index % n;
    index /= n;
  }
  return c;
}

nlohmann::ordered_json point_values(const Sweep& s, std::size_t index) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  const std::vector<std::size_t> c = coordinates(s, index);
  for (std::size_t k = 0; k < s.axes.size(); ++k) {
    for (const AxisMember& m : s.axes[k].members) out[m.pointer] = m.values[c[k]];
  }
  return out;
}

nlohmann::json point_scenario(const Sweep& s, std::size_t index) {
  nlohmann::json doc = s.base;
  const std::vector<std::size_t> c = coordinates(s, index);
  for (std::size_t k = 0; k < s.axes.size(); ++k) {
    for (const AxisMember& m : s.axes[k].members) {
      std::string why;
      set_pointer(doc, m.pointer, m.values[c[k]], &why);  // checked by check_points
    }
  }
  return doc;
}

nlohmann::ordered_json normalized_document(const Sweep& s) {
  using oj = nlohmann::ordered_json;
  oj doc;
  doc["schema"] = kSchemaV1;
  doc["name"] = s.name;
  doc["base"] = oj::parse(s.base.dump());
  oj axes = oj::array();
  for (const Axis& a : s.axes) {
    oj members = oj::array();
    for (const AxisMember& m : a.members) {
      members.push_back(
          {{"pointer", m.pointer}, {"values", oj::parse(nlohmann::json(m.values).dump())}});
    }
    if (members.size() == 1) {
      oj one = members[0];
      oj ax = {{"name", a.name}, {"pointer", one["pointer"]}, {"values", one["values"]}};
      axes.push_back(ax);
    } else {
      axes.push_back({{"name", a.name}, {"linked", members}});
    }
  }
  doc["axes"] = axes;
  oj cons = oj::array();
  for (const Constraint& c : s.constraints) {
    oj o = {{"metric", c.metric}};
    if (c.min) o["min"] = *c.min;
    if (c.max) o["max"] = *c.max;
    cons.push_back(o);
  }
  doc["constraints"] = cons;
  auto goal = [](const Goal& g) { return oj{{g.maximize ? "maximize" : "minimize", g.metric}}; };
  doc["objective"] = s.objective_name == "custom" ? goal(s.objective) : oj(s.objective_name);
  doc["pareto"] = oj::array({goal(s.pareto[0]), goal(s.pareto[1])});
  doc["budget"] = {{"max_runs", s.max_runs}};
  return doc;
}

}  // namespace blis::sweep
