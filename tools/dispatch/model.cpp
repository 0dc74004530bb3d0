#include "model.hpp"

namespace dispatch {

const Resource* Model::findResource(const std::string& name) const {
  for (const auto& r : resources)
    if (r.name == name) return &r;
  return nullptr;
}

const Dispatchable* Model::findDispatchable(const std::string& name) const {
  for (const auto& d : dispatchables)
    if (d.name == name) return &d;
  return nullptr;
}

Location Dispatchable::locate(const std::string& field) const {
  // The field, else the nearest enclosing one that was written
  // ("InputTensors[1].Sizes[0]" -> "InputTensors[1].Sizes" -> "InputTensors[1]").
  std::string f = field;
  while (true) {
    auto it = fields.find(f);
    if (it != fields.end()) return it->second;
    size_t cut = f.find_last_of(".[");
    if (cut == std::string::npos || f.empty()) break;
    f = f.substr(0, cut);
  }
  auto it = fields.find("");
  return it != fields.end() ? it->second : where;
}

}  // namespace dispatch
