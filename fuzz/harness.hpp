// What the descriptor fuzzer's files share: how a finding is reported (with
// the running case), and one case's run (Run: the plain execution in
// descriptor_fuzzer.cpp, its bind calls and resources in bindings.cpp, the
// schedules after it in schedules.cpp, the value checks in values.cpp).
#pragma once

#include <vkdml/vkdml.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "decode.hpp"
#include "layout.hpp"

namespace fuzz {

// What one execution may take, so that lavapipe runs it in milliseconds.
constexpr uint64_t kMaxTensorBytes = 1 << 20;
constexpr uint64_t kMaxBufferBytes = 4 << 20;
constexpr uint64_t kMaxElements = 1 << 18;
constexpr uint64_t kMaxConvolutionWork = 1 << 22;  // multiply-adds: M*N*K
constexpr uint64_t kGuard = 256;                   // bytes before and after each slot's region
constexpr uint64_t kRegionAlignment = 4096;
constexpr uint64_t kSlackRoom = 64;  // a binding may extend past its tensor (BindingChoice::slack)

// The device the cases run on (descriptor_fuzzer.cpp replaces it now and then).
extern std::shared_ptr<vkdml::Device>* gDevice;

// The running case, as far as it got: the operator, its tensors, the
// bindings; and the schedule running after its plain execution, if any (its
// name, which prefixes a finding's message, and what it does).
extern std::string gCase;
extern std::string gSchedule, gScheduleSteps;
// $VKDML_FUZZ_VERBOSE=1: print each error, each schedule and each case's
// outcome (to see what an input does: ./dev.sh fuzz FILE).
extern const bool gVerbose;

// Prints "FINDING: what" and the case, and aborts.
[[noreturn]] void finding(const std::string& what);
// Every error names its operator and field, and its message names both.
void checkError(const vkdml::Error& e, const char* call);

template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream s;
  (s << ... << args);
  return s.str();
}

uint32_t operatorType(const DML_OPERATOR_DESC& desc);  // the raw bits: the decoder stores any value
// An element's bytes as a little-endian hexadecimal number.
std::string hexBytes(const uint8_t* p, uint32_t n);
// Whether Device::featureSupport lists the convolution path.
bool deviceHasPath(const vkdml::Device& device, vkdml::ConvolutionPath path);

inline uint64_t alignUp(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

// The outcome of one case, counted for the summary and the seed corpus.
enum class Outcome { Rejected, NotCompiled, TooLarge, NotBound, NotExecuted, Executed, Count };

// The schedules run after plain executions (fuzz::Schedule), counted for the summary.
enum class ScheduleKind { Owned, Rebind, InitializerOrder, OtherPlan, Count };
extern const char* const kScheduleNames[static_cast<int>(ScheduleKind::Count)];
extern uint64_t gSchedules[static_cast<int>(ScheduleKind::Count)];

// One case's run: the operator, its slots' layouts, the buffer holding every
// binding's region, and what the binding table holds (as far as the calls
// that vkdml accepted say).
class Run {
 public:
  explicit Run(const Case& c) : c_(c) {}
  Outcome go();

 private:
  const Case& c_;
  vkdml::Device& device_ = **gDevice;
  std::vector<std::optional<Layout>> layouts_;  // per slot: the inputs, then the output
  std::vector<uint64_t> regions_;               // per slot: its region's offset in buffer_
  uint64_t bufferBytes_ = 0;
  vkdml::Buffer buffer_;
  std::vector<uint8_t> before_;
  std::optional<std::vector<vkdml::BufferBinding>> boundInputs_, boundOutputs_;
  // Each side's last accepted bind call bound every slot to its own region (or none was made).
  bool inputsPlain_ = true, outputsPlain_ = true;
  vkdml::Buffer temporary_;
  bool boundTemporary_ = false;  // temporary_ bound (else the table's own)
  vkdml::Operator op_;
  vkdml::CompiledOperator compiled_;
  vkdml::BindingProperties properties_;
  // After the plain execution: the buffer's bytes, and per output element
  // (row-major) whether two of DML_SCATTER_ND's index tuples name it (one of
  // the writers wins, which is unspecified: not compared).
  std::vector<uint8_t> plainAfter_;
  std::vector<uint8_t> ambiguous_;

  size_t slots() const { return layouts_.size(); }
  size_t outputSlot() const { return layouts_.size() - 1; }
  std::string slotName(size_t slot) const { return slot == outputSlot() ? std::string("output") : str("input ", slot); }
  std::string describe() const;
  void checkAccepted(const vkdml::Operator& op) const;
  bool fitsTable() const;
  bool fitsExecution() const;
  uint64_t regionBytes(size_t slot) const;
  void placeBindings();
  void fillIndices(size_t slot, uint64_t seed);
  vkdml::BufferBinding resolve(const BindingChoice& choice, size_t slot) const;
  void bind(vkdml::BindingTable& table, const BindCall& call);
  void checkBinding(const vkdml::BufferBinding& b, size_t slot, const char* call) const;
  bool inPlace() const;
  bool anyOwned() const;
  void refuseMisuse(const char* call, const std::function<void(const vkdml::BufferBinding&)>& bind,
                    const vkdml::Buffer& own, uint64_t bytes, uint64_t alignment,
                    const vkdml::BufferBinding* bound) const;
  void bindTemporary(vkdml::BindingTable& table, uint64_t bytes);
  std::optional<size_t> inputUnderOutput() const;
  std::vector<uint8_t> checkExecution(const std::vector<uint8_t>& before);
  bool owned(size_t slot) const;
  // The schedules (fuzz::Schedule, schedules.cpp).
  void restore();
  vkdml::Buffer resourceBuffer(uint64_t bytes);
  vkdml::BufferBinding resource(const vkdml::Buffer& buffer, uint64_t bytes) const { return {&buffer, kGuard, bytes}; }
  void checkResourceGuards(const vkdml::Buffer& b, uint64_t bytes, const char* what) const;
  std::vector<uint64_t> scatterTargets(uint32_t& first, uint32_t& k) const;
  void findAmbiguousTargets();
  std::vector<bool> reboundInputs() const;
  void garbleInputs(std::vector<uint8_t>& bytes, uint64_t shift, const std::vector<bool>& garbled) const;
  std::vector<uint8_t> outputBytes() const;
  // The output's values against the operator's definition (values.cpp).
  void checkValues(const std::vector<uint8_t>& after) const;
  void checkScatterValues(const std::vector<uint8_t>& after) const;
  void checkConvolutionValues(const std::vector<uint8_t>& after) const;
  void compareWithPlain(const std::vector<uint8_t>& after, uint64_t shift, const char* what) const;
  void bindPlain(vkdml::BindingTable& table, const std::vector<vkdml::BufferBinding>& inputs);
  void runSchedules(std::vector<uint8_t> plainAfter);
  void ownedSchedule();
  void rebindSchedule();
  void initializerOrderSchedule();
  void otherPlanSchedule();
};

}  // namespace fuzz
