// Fuzzer input bytes -> an operator descriptor, compile options and the
// binding calls to make. Descriptors are built valid (consistent shapes,
// exact TotalTensorSizeInBytes), then perturbed where the bytes say so:
// raw enum values, sizes of 0 or near 2^32, strides that are 0, huge or
// overlapping, sizes that are off, null pointers. A zero byte always takes
// the plain choice, so inputs that run out early still decode.
#pragma once

#include <vkdml/vkdml.hpp>

#include <cstdint>
#include <memory>
#include <vector>

#include "byte_reader.hpp"

namespace fuzz {

// Owns the arrays a descriptor points to; every array is its own heap block
// of exactly the length the descriptor declares (capped), so that
// AddressSanitizer reports a read past it.
class Storage {
 public:
  template <typename T>
  T* array(size_t count) {
    T* p = new T[count]();
    blocks_.emplace_back(p, [](void* q) { delete[] static_cast<T*>(q); });
    return p;
  }
  template <typename T>
  T* one(const T& value) {
    T* p = array<T>(1);
    *p = value;
    return p;
  }

 private:
  std::vector<std::unique_ptr<void, void (*)(void*)>> blocks_;
};

// Where one binding points, before the harness places it in its buffer.
struct BindingChoice {
  enum Kind : uint8_t {
    Own,         // the slot's own region, exactly aligned
    Misaligned,  // its region, moved by less than its alignment
    TooSmall,    // SizeInBytes below TotalTensorSizeInBytes
    OutOfRange,  // past the buffer's end, or wrapping 64 bits
    Alias,       // another slot's region, moved by `delta`
    Nothing,     // buffer = nullptr
  } kind = Own;
  uint32_t other = 0;  // Alias: the slot
  uint64_t delta = 0;  // Alias: bytes past that slot's offset; others: the amount off
  uint64_t slack = 0;  // bytes bound past TotalTensorSizeInBytes
};

// What follows an execution that succeeded (the plain schedule: the bind
// calls' table, Device::initialize where the operator has a persistent
// resource, then Device::execute): the same case again in the binding
// model's other orders, each of which must give the plain schedule's output
// (fuzz/README.md). Decoded last, from two bytes: inputs written before it
// keep their meaning, and zero adds nothing.
struct Schedule {
  // Owned inputs: initialize with a table binding the inputs flagged
  // DML_TENSOR_FLAG_OWNED_BY_DML alone, overwrite them with garbage, then
  // execute with them bound to nothing, or still bound (stayBound).
  bool owned = false;
  bool ownedStayBound = false;
  bool ownedBoundPersistent = false;  // a persistent resource of the fuzzer's, else the table's own
  bool ownedSecondTable = false;      // ownedBoundPersistent: the execution through another table
  bool ownedRecorded = false;         // the execution recorded into the fuzzer's command buffer, else Device::execute
  // Rebind-and-resubmit: recorded into the fuzzer's command buffer with the
  // table bound to a decoy buffer (the same bytes, `decoyShift` alignments
  // further), submitted, the slots rebound to the real buffer (rebindSome),
  // the decoy dropped, submitted again.
  bool rebind = false;
  // With a persistent resource: 0 the table's own, initialized with the
  // decoys bound; 1 the table's own, its initializer recorded before the
  // execution (so run again by the second submission); 2 a bound one, the
  // decoy's then another initialized from the real inputs.
  uint8_t rebindPersistent = 0;
  uint32_t decoyShift = 1;
  // The decoy kept instead (a bug then shows as a wrong output, not a
  // crash), refilled with other garbage, which the second submission must
  // leave alone.
  bool decoyKept = false;
  // Which slots the second submission rebinds: 0 every slot, 1 the inputs
  // alone, 2 the output alone, 3 some inputs (a mixed table: which ones the
  // data seed picks) and the output, 4 some inputs alone. Except with 0 the
  // decoy is kept, the other slots left on it, and each input's elements
  // are garbled on the side it is not bound to, where no input bound on
  // that side reads them.
  uint8_t rebindSome = 0;
  // Initializer order (a persistent resource, the table's own): an
  // initializer recorded but never submitted initializes nothing; one
  // recorded before the execution in the same command buffer does.
  bool initializerOrder = false;
  // Another plan: compiled again for another convolution path (Portable, or
  // DotProduct where the first was Portable) and the other copy path,
  // executed with the plain bindings; the output must be the plain one's.
  bool otherPlan = false;
};

// One bindInputs (outputs = false) or bindOutputs call.
struct BindCall {
  bool outputs = false;
  std::vector<BindingChoice> bindings;  // one per slot, then extra or fewer
};

struct Case {
  Storage storage;
  DML_OPERATOR_DESC desc{};
  // The binding slots in vkdml's order: the descriptor's inputs (null where
  // an optional one is left out, or where a required one was made null),
  // then its one output.
  std::vector<const DML_TENSOR_DESC*> inputs;
  const DML_TENSOR_DESC* output = nullptr;
  // DML_SCATTER_ND: the input holding indices, and how to fill it:
  // in range, negative in range (signed types), or raw bits.
  int indicesInput = -1;
  uint8_t indexMode = 0;
  vkdml::CompileOptions options;
  uint64_t dataSeed = 0;  // the bytes placed in the buffers
  std::vector<BindCall> calls;
  Schedule schedule;
  // Where the fuzzer binds a temporary resource of its own: before it, a
  // binding that must be refused: 1 one byte short, 2 past its buffer's end,
  // 3 over the output's range; or, 4, after it, none (the table's own again).
  uint8_t temporaryMisuse = 0;
  // Whether the decoder took a branch that may break a rule (decode.cpp's
  // perturbs()); a descriptor built without one must be accepted.
  bool perturbed = false;
  size_t scheduleOffset = 0;  // where the schedule's bytes are read (past the input's end: it is plain)
};

// Decodes a whole case from the input (its pointers point into Case::storage).
std::unique_ptr<Case> decode(const uint8_t* data, size_t size);

}  // namespace fuzz
