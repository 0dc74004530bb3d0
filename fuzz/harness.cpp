#include "harness.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fuzz {

std::shared_ptr<vkdml::Device>* gDevice = nullptr;

std::string gCase;
std::string gSchedule, gScheduleSteps;

const bool gVerbose = [] {
  const char* env = std::getenv("VKDML_FUZZ_VERBOSE");
  return env && std::strcmp(env, "1") == 0;
}();

const char* const kScheduleNames[] = {"owned-inputs", "rebind-and-resubmit", "initializer-order", "other-plan"};
uint64_t gSchedules[static_cast<int>(ScheduleKind::Count)] = {};

[[noreturn]] void finding(const std::string& what) {
  const std::string prefix = gSchedule.empty() ? "" : gSchedule + " schedule: ";
  const std::string steps = gSchedule.empty() ? "" : "  schedule " + gSchedule + ": " + gScheduleSteps + "\n";
  std::fprintf(stderr, "FINDING: %s%s\n%s%s", prefix.c_str(), what.c_str(), gCase.c_str(), steps.c_str());
  std::fflush(stderr);
  std::abort();
}

void checkError(const vkdml::Error& e, const char* call) {
  const std::string what = e.what();
  if (gVerbose) std::fprintf(stderr, "  %s: %s\n", call, what.c_str());
  if (e.op().empty() || e.field().empty() || what.find(e.op()) == std::string::npos ||
      what.find(e.field()) == std::string::npos)
    finding(str(call, ": an error that does not name its operator and field: op '", e.op(), "', field '", e.field(),
                "', message '", what, "'"));
}

uint32_t operatorType(const DML_OPERATOR_DESC& desc) {
  uint32_t bits;
  std::memcpy(&bits, &desc.Type, sizeof bits);
  return bits;
}

std::string hexBytes(const uint8_t* p, uint32_t n) {
  std::string text = "0x";
  for (uint32_t i = n; i-- > 0;) {  // little-endian: the most significant byte first
    char digits[3];
    std::snprintf(digits, sizeof digits, "%02x", p[i]);
    text += digits;
  }
  return text;
}

bool deviceHasPath(const vkdml::Device& device, vkdml::ConvolutionPath path) {
  for (const vkdml::OperatorSupport& op : device.featureSupport().operators)
    if (op.type == DML_OPERATOR_CONVOLUTION_INTEGER)
      return std::find(op.convolutionPaths.begin(), op.convolutionPaths.end(), path) != op.convolutionPaths.end();
  return false;
}

}  // namespace fuzz
