// A model file as a tree of JSON values that remember where they were
// written, so that every error can name file:line:column. nlohmann-json
// parses (with comments, as DxDispatch's RapidJSON flags accept them); a
// pre-pass blanks trailing commas, which nlohmann 3.11 rejects.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dispatch {

struct Location {
  std::string file;
  uint32_t line = 0;  // 1-based; 0: not from the file
  uint32_t column = 0;
  std::string str() const;  // "file:line:column" (or "file", or "")
};

// Every error of the tool: what() is "file:line:column: message".
class ModelError : public std::runtime_error {
 public:
  ModelError(Location where, const std::string& message);
  const Location& where() const noexcept { return where_; }
  const std::string& message() const noexcept { return message_; }

 private:
  Location where_;
  std::string message_;
};

struct JsonValue {
  enum class Kind { Null, Bool, Int, Uint, Float, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  int64_t integer = 0;     // Int: negative integers
  uint64_t unsigned_ = 0;  // Uint: non-negative integers
  double number = 0;       // Float
  std::string string;
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;  // in file order, duplicates kept
  std::vector<size_t> keyOffsets;                          // where each member's key starts
  size_t offset = 0;                                       // where the value starts in the file

  bool isNumber() const { return kind == Kind::Int || kind == Kind::Uint || kind == Kind::Float; }
  // The first member named `key` (as RapidJSON's FindMember), or null.
  const JsonValue* find(const std::string& key) const;
};

const char* kindName(JsonValue::Kind kind);  // "a number", "an object", ...

class JsonDocument {
 public:
  // Parses `text`; a syntax error is a ModelError at its line and column
  // with what nlohmann expected. As RapidJSON's kParseStopWhenDoneFlag,
  // whatever follows the root value is ignored.
  static JsonDocument parse(std::string text, const std::string& file);
  static JsonDocument parseFile(const std::string& path);  // at most kMaxFileBytes

  const JsonValue& root() const { return *root_; }
  Location locate(size_t offset) const;
  Location locate(const JsonValue& value) const { return locate(value.offset); }
  const std::string& file() const { return file_; }

  // Each value takes about 150 bytes in the tree, so a file of numbers
  // costs some 75 times its size; large data belongs in .npy files.
  static constexpr uint64_t kMaxFileBytes = uint64_t(16) << 20;

 private:
  std::string file_;
  std::string text_;
  std::vector<size_t> lineStarts_;
  std::shared_ptr<JsonValue> root_;
};

// Blanks (with a space) each comma that follows a value and precedes a
// closing ']' or '}', outside strings and comments: RapidJSON's
// kParseTrailingCommasFlag. The text keeps its length, so offsets hold.
void blankTrailingCommas(std::string& text);

}  // namespace dispatch
