// vkdml-spirv-nv-to-khr IN.spv OUT.spv: writes the SPV_KHR_cooperative_matrix
// form of an SPV_NV_cooperative_matrix module (nv_to_khr.hpp). On an error
// it says why and writes nothing.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "nv_to_khr.hpp"

namespace {
std::vector<uint32_t> readModule(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot open it");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) throw std::runtime_error("cannot read it");
  if (bytes.empty() || bytes.size() % 4)
    throw std::runtime_error(std::to_string(bytes.size()) + " bytes: SPIR-V is a non-empty sequence of 4-byte words");
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN.spv OUT.spv (SPV_NV_cooperative_matrix in, SPV_KHR_cooperative_matrix out)\n",
                 argv[0]);
    return 2;
  }
  const std::string in = argv[1], out = argv[2];
  std::vector<uint32_t> khr;
  try {
    khr = vkdml::spirv::translateNvCooperativeMatrixToKhr(readModule(in));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", in.c_str(), e.what());
    return 1;
  }
  const std::string temporary = out + ".tmp";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(khr.data()), static_cast<std::streamsize>(khr.size() * 4));
    if (!file.flush()) {
      std::fprintf(stderr, "%s: cannot write it\n", temporary.c_str());
      std::remove(temporary.c_str());
      return 1;
    }
  }
  if (std::rename(temporary.c_str(), out.c_str()) != 0) {
    std::fprintf(stderr, "%s: cannot rename it to %s: %s\n", temporary.c_str(), out.c_str(), std::strerror(errno));
    std::remove(temporary.c_str());
    return 1;
  }
  return 0;
}
