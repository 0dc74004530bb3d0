#include "json_document.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace dispatch {

std::string Location::str() const {
  if (line == 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

ModelError::ModelError(Location where, const std::string& message)
    : std::runtime_error(where.str().empty() ? message : where.str() + ": " + message),
      where_(std::move(where)),
      message_(message) {}

const JsonValue* JsonValue::find(const std::string& key) const {
  for (const auto& m : members)
    if (m.first == key) return &m.second;
  return nullptr;
}

const char* kindName(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::Null:
      return "null";
    case JsonValue::Kind::Bool:
      return "a boolean";
    case JsonValue::Kind::Int:
    case JsonValue::Kind::Uint:
    case JsonValue::Kind::Float:
      return "a number";
    case JsonValue::Kind::String:
      return "a string";
    case JsonValue::Kind::Array:
      return "an array";
    case JsonValue::Kind::Object:
      return "an object";
  }
  return "?";
}

void blankTrailingCommas(std::string& text) {
  const size_t n = text.size();
  char lastSignificant = 0;  // the last character outside strings and comments that is not whitespace
  size_t i = 0;
  // Skips a comment starting at j (text[j] == '/'); returns the index after it.
  auto skipComment = [&](size_t j) {
    if (j + 1 < n && text[j + 1] == '/') {
      while (j < n && text[j] != '\n') ++j;
      return j;
    }
    if (j + 1 < n && text[j + 1] == '*') {
      size_t end = text.find("*/", j + 2);
      return end == std::string::npos ? n : end + 2;
    }
    return j + 1;
  };
  while (i < n) {
    char c = text[i];
    if (c == '"') {
      ++i;
      while (i < n && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      ++i;
      lastSignificant = '"';
    } else if (c == '/' && i + 1 < n && (text[i + 1] == '/' || text[i + 1] == '*')) {
      i = skipComment(i);
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (c == ',') {
      // A comma right after '[', '{', ':' or another comma is an error; keep it.
      bool afterValue = lastSignificant != 0 && std::strchr("[{:,", lastSignificant) == nullptr;
      size_t j = i + 1;
      while (j < n) {
        if (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')
          ++j;
        else if (text[j] == '/' && j + 1 < n && (text[j + 1] == '/' || text[j + 1] == '*'))
          j = skipComment(j);
        else
          break;
      }
      if (afterValue && j < n && (text[j] == ']' || text[j] == '}')) text[i] = ' ';
      lastSignificant = text[i] == ' ' ? lastSignificant : ',';
      ++i;
    } else {
      lastSignificant = c;
      ++i;
    }
  }
}

namespace {

constexpr size_t kMaxDepth = 256;

bool isNumberChar(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// An input iterator over the text that counts what the lexer has read, so
// that the SAX handler knows where each token ended.
class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator(const char* p, size_t* consumed) : p_(p), consumed_(consumed) {}
  reference operator*() const { return *p_; }
  CountingIterator& operator++() {
    ++p_;
    ++*consumed_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CountingIterator& o) const { return p_ == o.p_; }
  bool operator!=(const CountingIterator& o) const { return p_ != o.p_; }

 private:
  const char* p_;
  size_t* consumed_;
};

using Json = nlohmann::json;

class TreeBuilder : public nlohmann::json_sax<Json> {
 public:
  TreeBuilder(const std::string& text, const size_t& consumed) : text_(text), consumed_(consumed) {}

  JsonValue root;
  std::string error;  // nlohmann's message without its prefix
  size_t errorOffset = 0;

  bool null() override { return add(JsonValue::Kind::Null, consumed_ - 4); }
  bool boolean(bool v) override {
    JsonValue* value = add(JsonValue::Kind::Bool, consumed_ - (v ? 4 : 5));
    value->boolean = v;
    return true;
  }
  bool number_integer(number_integer_t v) override {
    add(JsonValue::Kind::Int, numberStart())->integer = v;
    return true;
  }
  bool number_unsigned(number_unsigned_t v) override {
    add(JsonValue::Kind::Uint, numberStart())->unsigned_ = v;
    return true;
  }
  bool number_float(number_float_t v, const string_t&) override {
    add(JsonValue::Kind::Float, numberStart())->number = v;
    return true;
  }
  bool string(string_t& v) override {
    add(JsonValue::Kind::String, stringStart())->string = std::move(v);
    return true;
  }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override { return open(JsonValue::Kind::Object); }
  bool key(string_t& v) override {
    JsonValue* object = stack_.back();
    object->members.emplace_back(std::move(v), JsonValue{});
    object->keyOffsets.push_back(stringStart());
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return open(JsonValue::Kind::Array); }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 4: syntax error ..."
    size_t column = what.find("column ");
    size_t colon = what.find(": ", column == std::string::npos ? 0 : column);
    error = colon == std::string::npos ? what : what.substr(colon + 2);
    errorOffset = position == 0 ? 0 : position - 1;
    return false;
  }

 private:
  // Where the value that just ended began.
  size_t numberStart() const {
    // The lexer reads one character past a number unless the text ended.
    size_t end = consumed_;
    if (end > 0 && !(end == text_.size() && isNumberChar(text_[end - 1]))) --end;
    while (end > 0 && isNumberChar(text_[end - 1])) --end;
    return end;
  }
  size_t stringStart() const {
    // consumed_ - 1 is the closing quote; inside the string every quote is
    // escaped, so the opening one is the first quote back that follows an
    // even number of backslashes.
    size_t i = consumed_ - 1;
    while (i-- > 0) {
      if (text_[i] != '"') continue;
      size_t backslashes = 0;
      while (backslashes < i && text_[i - 1 - backslashes] == '\\') ++backslashes;
      if (backslashes % 2 == 0) return i;
    }
    return 0;
  }
  JsonValue* add(JsonValue::Kind kind, size_t offset) {
    JsonValue* value;
    if (stack_.empty()) {
      value = &root;
    } else if (stack_.back()->kind == JsonValue::Kind::Array) {
      stack_.back()->items.emplace_back();
      value = &stack_.back()->items.back();
    } else {
      value = &stack_.back()->members.back().second;
    }
    value->kind = kind;
    value->offset = offset;
    return value;
  }
  bool open(JsonValue::Kind kind) {
    if (stack_.size() >= kMaxDepth) {
      error = "values nested deeper than " + std::to_string(kMaxDepth) + " levels";
      errorOffset = consumed_ - 1;
      return false;
    }
    stack_.push_back(add(kind, consumed_ - 1));
    return true;
  }

  const std::string& text_;
  const size_t& consumed_;
  std::vector<JsonValue*> stack_;
};

}  // namespace

JsonDocument JsonDocument::parse(std::string text, const std::string& file) {
  JsonDocument doc;
  doc.file_ = file;
  doc.lineStarts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') doc.lineStarts_.push_back(i + 1);
  std::string lenient = text;
  blankTrailingCommas(lenient);
  doc.text_ = std::move(text);

  size_t consumed = 0;
  TreeBuilder builder(lenient, consumed);
  CountingIterator first(lenient.data(), &consumed), last(lenient.data() + lenient.size(), &consumed);
  bool ok = Json::sax_parse(first, last, &builder, Json::input_format_t::json, /*strict=*/false,
                            /*ignore_comments=*/true);
  if (!ok) {
    // A binary value cannot come from JSON text; an error always says why.
    throw ModelError(doc.locate(builder.errorOffset),
                     builder.error.empty() ? "not a JSON document" : "JSON parse error: " + builder.error);
  }
  doc.root_ = std::make_shared<JsonValue>(std::move(builder.root));
  return doc;
}

JsonDocument JsonDocument::parseFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw ModelError({path}, "not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError({path}, "cannot open the file");
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes)
      throw ModelError({path}, "the file is larger than " + std::to_string(kMaxFileBytes >> 20) + " MiB");
  }
  if (in.bad()) throw ModelError({path}, "cannot read the file");
  return parse(std::move(text), path);
}

Location JsonDocument::locate(size_t offset) const {
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  size_t line = static_cast<size_t>(it - lineStarts_.begin());
  return {file_, static_cast<uint32_t>(line), static_cast<uint32_t>(offset - *(it - 1) + 1)};
}

}  // namespace dispatch
