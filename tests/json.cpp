#include "json.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

namespace test {

namespace {
struct Parser {
  const std::string& s;
  size_t at = 0;

  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string("json: ") + what + " at offset " + std::to_string(at));
  }
  void space() {
    while (at < s.size() && (s[at] == ' ' || s[at] == '\n' || s[at] == '\r' || s[at] == '\t')) ++at;
  }
  bool take(char c) {
    space();
    if (at < s.size() && s[at] == c) {
      ++at;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail("unexpected character");
  }
  std::string string() {
    expect('"');
    std::string out;
    while (at < s.size() && s[at] != '"') {
      char c = s[at++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at >= s.size()) fail("bad escape");
      char e = s[at++];
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          if (at + 4 > s.size()) fail("bad \\u escape");
          unsigned code = static_cast<unsigned>(std::stoul(s.substr(at, 4), nullptr, 16));
          at += 4;
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
          }
          break;
        }
        default:
          out += e;
      }
    }
    expect('"');
    return out;
  }
  Json value() {
    space();
    if (at >= s.size()) fail("unexpected end");
    Json v;
    char c = s[at];
    if (c == '{') {
      v.kind = Json::Kind::Object;
      ++at;
      if (take('}')) return v;
      do {
        space();
        std::string key = string();
        expect(':');
        v.members[key] = value();
      } while (take(','));
      expect('}');
    } else if (c == '[') {
      v.kind = Json::Kind::Array;
      ++at;
      if (take(']')) return v;
      do v.items.push_back(value());
      while (take(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Json::Kind::String;
      v.text = string();
    } else if (s.compare(at, 4, "true") == 0) {
      v.kind = Json::Kind::Bool;
      v.boolean = true;
      at += 4;
    } else if (s.compare(at, 5, "false") == 0) {
      v.kind = Json::Kind::Bool;
      at += 5;
    } else if (s.compare(at, 4, "null") == 0) {
      at += 4;
    } else {
      size_t start = at;
      while (at < s.size() && (std::isdigit(static_cast<unsigned char>(s[at])) || s[at] == '-' || s[at] == '+' ||
                               s[at] == '.' || s[at] == 'e' || s[at] == 'E'))
        ++at;
      if (start == at) fail("unexpected character");
      v.kind = Json::Kind::Number;
      v.text = s.substr(start, at - start);
    }
    return v;
  }
};
}  // namespace

Json Json::parse(const std::string& source) {
  Parser p{source};
  Json v = p.value();
  p.space();
  if (p.at != source.size()) p.fail("trailing characters");
  return v;
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
