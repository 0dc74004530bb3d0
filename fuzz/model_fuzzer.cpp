// libFuzzer target for vkdml-dispatch's model reader: arbitrary bytes as a
// DxDispatch JSON model through the lenient JSON reader, the model parser,
// the resource initializers, the descriptor builder (lowering included) and
// vkdml::validate. Nothing runs on a device. Every input must either parse
// or fail with a dispatch::ModelError; anything else (another exception, a
// crash, a sanitizer report, an allocation past -rss_limit_mb) is a finding.
// Files are not read (sourcePath fails); resources are capped at 1 MiB, 4 MiB together.
// An input that starts as a .npy file does ("\x93NUMPY") goes to the .npy
// reader instead: it parses or throws std::runtime_error, and what it reads
// writes back to a file that reads the same.
#include <vkdml/vkdml.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "descriptors.hpp"
#include "json_document.hpp"
#include "model_parser.hpp"
#include "npy.hpp"
#include "printer.hpp"
#include "resource_init.hpp"

namespace {
void readNpy(const uint8_t* data, size_t size) {
  dispatch::NpyArray array;
  try {
    array = dispatch::readNpy(std::vector<uint8_t>(data, data + size));
  } catch (const std::runtime_error&) {
    return;
  }
  const std::vector<uint64_t> shape(array.shape.begin(), array.shape.end());
  const dispatch::NpyArray again = dispatch::readNpy(dispatch::writeNpy(array.dataType, shape, array.data));
  if (again.dataType != array.dataType || again.shape != array.shape || again.data != array.data) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0) {
    readNpy(data, size);
    return 0;
  }
  dispatch::ParseOptions options;
  options.allowFiles = false;
  options.maxResourceBytes = 1 << 20;
  options.maxModelBytes = 4 << 20;
  dispatch::Model model;
  try {
    model = dispatch::parseModel(
        dispatch::JsonDocument::parse(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json"), options);
  } catch (const dispatch::ModelError&) {
    return 0;
  }
  for (const auto& resource : model.resources) {
    std::vector<uint8_t> contents = dispatch::initialContents(resource);
    // The executor writes large resources in pieces (one ContentsWriter,
    // next() called again and again): pieces of 1 to 13 bytes, the input's
    // bytes choosing, must give the same contents.
    std::vector<uint8_t> pieces(contents.size());
    dispatch::ContentsWriter writer(resource);
    for (size_t at = 0, i = 0; at < pieces.size(); ++i) {
      const size_t n = std::min<size_t>(pieces.size() - at, 1 + data[i % size] % 13);
      writer.next(pieces.data() + at, n);
      at += n;
    }
    if (pieces != contents) std::abort();
    const uint32_t elementSize = vkdmlElementSizeInBytes(resource.dataType);
    if (elementSize)
      (void)dispatch::formatResource(resource.name, resource.dataType, contents, resource.initialBytes / elementSize,
                                     size % 2 == 0);
  }
  for (const auto& dispatchable : model.dispatchables) {
    try {
      auto built = dispatch::buildDescriptor(dispatchable);
      (void)vkdml::validate(built->desc);
      (void)dispatch::bindPoints(dispatchable.desc);
    } catch (const dispatch::ModelError&) {
    }
  }
  return 0;
}
