// DxDispatch's JSON model format -> Model. Errors are ModelErrors at the
// line and column of the offending value, naming its path in the model
// ("resources.A.initialValues.valueCount") and what was expected.
#pragma once

#include <cstdint>
#include <string>

#include "json_document.hpp"
#include "model.hpp"

namespace dispatch {

struct ParseOptions {
  // Base folder for initialValues' sourcePath (DxDispatch's --input_path);
  // empty: the model file's folder.
  std::string inputPath;
  // The most bytes one resource may hold, and all of them together: sizes
  // are checked before anything is read or allocated. The tool lowers them
  // to the device's (runOnDevice).
  uint64_t maxResourceBytes = uint64_t(4) << 30;
  uint64_t maxModelBytes = UINT64_MAX;
  bool allowFiles = true;  // sourcePath initializers (off in the fuzzer)
};

Model parseModel(const JsonDocument& document, const ParseOptions& options = {});
// Reads and parses a model file (.json, as DxDispatch requires).
Model parseModelFile(const std::string& path, const ParseOptions& options = {});

}  // namespace dispatch
