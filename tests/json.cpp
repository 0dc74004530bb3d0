#include "json.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

namespace test {

namespace {
// nlohmann keeps integers as 64-bit integers, so their text is exact;
// other numbers are written back with 17 digits, which parse to the same double.
Json convert(const nlohmann::json& j) {
  Json v;
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      break;
    case nlohmann::json::value_t::boolean:
      v.kind = Json::Kind::Bool;
      v.boolean = j.get<bool>();
      break;
    case nlohmann::json::value_t::number_integer:
      v.kind = Json::Kind::Number;
      v.text = std::to_string(j.get<int64_t>());
      break;
    case nlohmann::json::value_t::number_unsigned:
      v.kind = Json::Kind::Number;
      v.text = std::to_string(j.get<uint64_t>());
      break;
    case nlohmann::json::value_t::number_float: {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", j.get<double>());
      v.kind = Json::Kind::Number;
      v.text = text;
      break;
    }
    case nlohmann::json::value_t::string:
      v.kind = Json::Kind::String;
      v.text = j.get<std::string>();
      break;
    case nlohmann::json::value_t::array:
      v.kind = Json::Kind::Array;
      for (const auto& item : j) v.items.push_back(convert(item));
      break;
    case nlohmann::json::value_t::object:
      v.kind = Json::Kind::Object;
      for (const auto& member : j.items()) v.members[member.key()] = convert(member.value());
      break;
    default:
      throw std::runtime_error("json: unexpected value");
  }
  return v;
}
}  // namespace

Json Json::parse(const std::string& source) {
  try {
    return convert(nlohmann::json::parse(source));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("json: ") + e.what());
  }
}

Json Json::parseFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("json: cannot open " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse(buffer.str());
}

const Json& Json::operator[](const std::string& key) const {
  auto it = members.find(key);
  if (it == members.end()) throw std::runtime_error("json: no member " + key);
  return it->second;
}

int64_t Json::asInt() const {
  if (kind != Kind::Number) throw std::runtime_error("json: not a number");
  if (text.find_first_of(".eE") != std::string::npos) return static_cast<int64_t>(std::stod(text));
  return std::stoll(text);
}

uint64_t Json::asUint() const {
  if (kind != Kind::Number) throw std::runtime_error("json: not a number");
  if (!text.empty() && text[0] == '-') return static_cast<uint64_t>(asInt());
  if (text.find_first_of(".eE") != std::string::npos) return static_cast<uint64_t>(std::stod(text));
  return std::stoull(text);
}

double Json::asDouble() const {
  if (kind == Kind::String) {
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (text == "Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
    throw std::runtime_error("json: not a number: " + text);
  }
  if (kind != Kind::Number) throw std::runtime_error("json: not a number");
  return std::strtod(text.c_str(), nullptr);
}

const std::string& Json::asString() const {
  if (kind != Kind::String) throw std::runtime_error("json: not a string");
  return text;
}

}  // namespace test
