// SPV_NV_cooperative_matrix -> SPV_KHR_cooperative_matrix (nv_to_khr.hpp
// says what changes and what is refused).
#include "nv_to_khr.hpp"

#include <spirv-tools/libspirv.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

namespace vkdml {
namespace spirv {

namespace {

constexpr uint32_t kMagic = 0x07230203;
constexpr size_t kHeaderWords = 5;

struct Instruction {
  size_t offset;  // of its first word in the module
  uint32_t count, opcode, type, result;
};

[[noreturn]] void refuse(const std::string& message) {
  throw TranslationError("spirv_nv_to_khr: " + message);
}

std::string literalString(const uint32_t* words, size_t count) {
  std::string text;
  for (size_t i = 0; i < count; ++i)
    for (unsigned b = 0; b < 4; ++b) {
      const char c = static_cast<char>((words[i] >> (8 * b)) & 0xFF);
      if (c == 0) return text;
      text += c;
    }
  return text;
}

std::vector<uint32_t> encodeString(const std::string& text) {
  std::vector<uint32_t> words(text.size() / 4 + 1, 0u);
  for (size_t i = 0; i < text.size(); ++i)
    words[i / 4] |= static_cast<uint32_t>(static_cast<unsigned char>(text[i])) << (8 * (i % 4));
  return words;
}

const char* useName(uint32_t use) {
  return use == MatrixA ? "MatrixAKHR" : use == MatrixB ? "MatrixBKHR" : "MatrixAccumulatorKHR";
}

// The instructions of a module, through SPIRV-Tools' parser (which knows
// each opcode's result type and result id).
std::vector<Instruction> parse(const std::vector<uint32_t>& module) {
  if (module.size() < kHeaderWords) refuse("a module of " + std::to_string(module.size()) + " words has no header");
  if (module[0] != kMagic) {
    std::ostringstream text;
    text << "word 0 is 0x" << std::hex << module[0] << ", not the SPIR-V magic number 0x7230203"
         << (module[0] == 0x03022307u ? " (a module of the other endianness)" : "");
    refuse(text.str());
  }
  struct State {
    const uint32_t* base;
    std::vector<Instruction> instructions;
  } state{module.data(), {}};
  const auto onInstruction = [](void* user, const spv_parsed_instruction_t* parsed) -> spv_result_t {
    State& s = *static_cast<State*>(user);
    s.instructions.push_back(Instruction{static_cast<size_t>(parsed->words - s.base), parsed->num_words, parsed->opcode,
                                         parsed->type_id, parsed->result_id});
    return SPV_SUCCESS;
  };
  spv_context context = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
  spv_diagnostic diagnostic = nullptr;
  const spv_result_t result =
      spvBinaryParse(context, &state, module.data(), module.size(), nullptr, onInstruction, &diagnostic);
  std::string why = diagnostic && diagnostic->error ? diagnostic->error : "";
  if (diagnostic) why += " (word " + std::to_string(diagnostic->position.index) + ")";
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  if (result != SPV_SUCCESS) refuse("SPIRV-Tools cannot parse the module: " + why);
  return state.instructions;
}

// Union-find over the matrix types converted into one another.
struct Classes {
  std::unordered_map<uint32_t, uint32_t> parent;
  uint32_t find(uint32_t id) {
    while (parent[id] != id) id = parent[id] = parent[parent[id]];
    return id;
  }
  void join(uint32_t a, uint32_t b) { parent[find(a)] = find(b); }
};

class Translator {
 public:
  explicit Translator(const std::vector<uint32_t>& module) : in_(module), instructions_(parse(module)) {
    for (size_t i = 0; i < instructions_.size(); ++i)
      if (instructions_[i].result) definition_[instructions_[i].result] = i;
  }

  std::vector<uint32_t> run() {
    checkModule();
    checkMatrixTypes();
    assignUses();
    planLayoutsAndMasks();
    planConstants();
    return emit();
  }

 private:
  const uint32_t* words(const Instruction& i) const { return in_.data() + i.offset; }
  uint32_t word(const Instruction& i, size_t n) const { return in_[i.offset + n]; }
  const Instruction* defining(uint32_t id) const {
    const auto it = definition_.find(id);
    return it == definition_.end() ? nullptr : &instructions_[it->second];
  }
  size_t indexOf(uint32_t id) const { return definition_.at(id); }
  bool isMatrixType(uint32_t id) const { return matrixTypes_.count(id) != 0; }
  uint32_t typeOf(uint32_t value) const {
    const Instruction* d = defining(value);
    return d ? d->type : 0u;
  }
  // OpTypeInt's width and signedness, or {0, 0} for another type.
  std::pair<uint32_t, uint32_t> intType(uint32_t id) const {
    const Instruction* d = defining(id);
    if (!d || d->opcode != op::TypeInt) return {0, 0};
    return {word(*d, 2), word(*d, 3)};
  }

  // How a diagnostic names an id: %id and its OpName, if any.
  std::string describe(uint32_t id) const {
    std::string text = "%" + std::to_string(id);
    for (const Instruction& i : instructions_)
      if (i.opcode == op::Name && i.count >= 3 && word(i, 1) == id) {
        text += " (\"" + literalString(words(i) + 2, i.count - 2) + "\")";
        break;
      }
    return text;
  }
  std::string dimension(uint32_t id) const {
    const Instruction* d = defining(id);
    if (d && d->opcode == op::Constant) return std::to_string(word(*d, 3));
    return "%" + std::to_string(id);
  }
  std::string describeMatrix(uint32_t type) const {
    const Instruction& t = instructions_[indexOf(type)];
    const auto component = intType(word(t, 2));
    std::string text = "OpTypeCooperativeMatrixNV " + describe(type) + " (" + dimension(word(t, 4)) + "x" +
                       dimension(word(t, 5)) + " of ";
    if (component.first)
      text += (component.second ? "int" : "uint") + std::to_string(component.first);
    else
      text += "%" + std::to_string(word(t, 2));
    return text + ")";
  }

  void checkModule() {
    const uint32_t version = in_[1];
    if (version < 0x00010300u) {
      std::ostringstream text;
      text << "SPIR-V " << (version >> 16) << "." << ((version >> 8) & 0xFF)
           << ": the cooperative-matrix extensions require SPIR-V 1.3";
      refuse(text.str());
    }
    bool memoryModel = false;
    for (size_t i = 0; i < instructions_.size(); ++i) {
      const Instruction& n = instructions_[i];
      if (n.opcode == op::Capability) {
        const uint32_t c = word(n, 1);
        if (c == capability::CooperativeMatrixNV && !nvCapability_) nvCapability_ = i + 1;
        if (c == capability::Shader) shader_ = true;
        if (c == capability::VulkanMemoryModel) memoryModel = true;
        if (c == capability::CooperativeMatrixKHR) refuse("the module already declares CooperativeMatrixKHR");
      } else if (n.opcode == op::Extension) {
        const std::string name = literalString(words(n) + 1, n.count - 1);
        if (name == kNvExtension) nvExtensions_.insert(i);
        if (name == kKhrExtension) refuse(std::string("the module already declares ") + kKhrExtension);
      } else if (n.opcode >= op::TypeCooperativeMatrixKHR && n.opcode <= op::CooperativeMatrixLengthKHR) {
        refuse("the module already holds SPV_KHR_cooperative_matrix instructions (opcode " + std::to_string(n.opcode) +
               ")");
      } else if (n.opcode == op::TypeCooperativeMatrixNV) {
        matrixTypes_[n.result] = 0;
        if (firstMatrixType_ == 0) firstMatrixType_ = i + 1;
      } else if (n.opcode == op::SpecConstantOp && word(n, 3) == op::CooperativeMatrixLengthNV) {
        refuse("OpSpecConstantOp CooperativeMatrixLengthNV " + describe(n.result) +
               ": SPV_KHR_cooperative_matrix allows no OpSpecConstantOp on the length of a matrix");
      }
    }
    if (!nvCapability_) refuse("the module declares no CooperativeMatrixNV capability: nothing to translate");
    if (nvExtensions_.empty())
      refuse(std::string("the module declares CooperativeMatrixNV but no OpExtension ") + kNvExtension);
    // The NV capability implicitly declares Shader, which in turn calls for the Vulkan memory model under KHR.
    if (!memoryModel)
      refuse(
          "the module lacks the VulkanMemoryModel capability, which SPV_KHR_cooperative_matrix requires in "
          "shaders (glslang: #extension GL_KHR_memory_scope_semantics)");
  }

  // Rows and Columns: 32-bit integer constant instructions for KHR (NV takes any width).
  void checkMatrixTypes() {
    for (const auto& entry : matrixTypes_) {
      const Instruction& t = instructions_[indexOf(entry.first)];
      const std::pair<uint32_t, const char*> operands[] = {{3, "Scope"}, {4, "Rows"}, {5, "Columns"}};
      for (const auto& operand : operands) {
        const Instruction* d = defining(word(t, operand.first));
        const bool constant =
            d && (d->opcode == op::Constant || d->opcode == op::SpecConstant || d->opcode == op::SpecConstantOp);
        if (!constant || intType(d->type).first != 32)
          refuse(describeMatrix(entry.first) + ": its " + operand.second + " %" +
                 std::to_string(word(t, operand.first)) +
                 " is no 32-bit integer constant instruction, as SPV_KHR_cooperative_matrix requires");
      }
    }
    if (!firstMatrixType_) return;  // nothing typed by a matrix either
    // The Use and MemoryLayout constants' type: the first matrix type's
    // Scope's, 32-bit and declared before it.
    intType_ = defining(word(instructions_[firstMatrixType_ - 1], 3))->type;
    if (indexOf(intType_) >= firstMatrixType_ - 1) refuse("the first matrix type's Scope type comes after it");
  }

  // Each type's Use, from the multiply-adds (conversions share a Use).
  void assignUses() {
    Classes classes;
    for (const auto& entry : matrixTypes_) classes.parent[entry.first] = entry.first;
    struct Role {
      uint32_t use;
      std::string where;
    };
    std::multimap<uint32_t, std::pair<uint32_t, Role>> roles;  // class -> (type, role)
    auto matrixTypeOf = [&](uint32_t value, const Instruction& n, const char* operand) {
      const uint32_t type = typeOf(value);
      if (!isMatrixType(type))
        refuse("operand " + std::string(operand) + " %" + std::to_string(value) + " of OpCooperativeMatrixMulAddNV %" +
               std::to_string(n.result) + " is no cooperative matrix");
      return type;
    };
    std::vector<std::pair<uint32_t, Role>> found;
    for (const Instruction& n : instructions_) {
      if (n.opcode == op::CooperativeMatrixMulAddNV) {
        const std::string at = " of OpCooperativeMatrixMulAddNV %" + std::to_string(n.result);
        found.push_back({matrixTypeOf(word(n, 3), n, "A"), {MatrixA, "operand A" + at}});
        found.push_back({matrixTypeOf(word(n, 4), n, "B"), {MatrixB, "operand B" + at}});
        found.push_back({matrixTypeOf(word(n, 5), n, "C"), {MatrixAccumulator, "operand C" + at}});
        if (!isMatrixType(n.type)) refuse("the result type" + at + " is no cooperative matrix");
        found.push_back({n.type, {MatrixAccumulator, "the result type" + at}});
      }
      // OpConvertFToU .. OpFConvert, OpBitcast: the same Use on both sides (KHR).
      const bool conversion = (n.opcode >= 109 && n.opcode <= 115) || n.opcode == 124;
      if (conversion && n.count >= 4 && isMatrixType(n.type) && isMatrixType(typeOf(word(n, 3))))
        classes.join(n.type, typeOf(word(n, 3)));
    }
    for (const auto& f : found) roles.insert({classes.find(f.first), f});
    for (auto& entry : matrixTypes_) {
      const uint32_t root = classes.find(entry.first);
      const auto range = roles.equal_range(root);
      const std::pair<uint32_t, Role>* first = nullptr;
      for (auto it = range.first; it != range.second; ++it) {
        if (!first) {
          first = &it->second;
          continue;
        }
        if (it->second.second.use == first->second.use) continue;
        const bool same = it->second.first == first->first;
        refuse(describeMatrix(first->first) + " is used as " + useName(first->second.use) + " (" + first->second.where +
               ") and " + (same ? "" : "through conversions to " + describeMatrix(it->second.first) + ", ") + "as " +
               useName(it->second.second.use) + " (" + it->second.second.where +
               "): a KHR cooperative matrix type has one Use, and splitting an NV type into one type per use "
               "is not implemented (give each use its own matrix type in the shader)");
      }
      entry.second = first ? first->second.use : static_cast<uint32_t>(MatrixAccumulator);
    }
  }

  // Each load's and store's MemoryLayout, and each multiply-add's signedness.
  void planLayoutsAndMasks() {
    for (size_t i = 0; i < instructions_.size(); ++i) {
      const Instruction& n = instructions_[i];
      if (n.opcode == op::CooperativeMatrixLoadNV || n.opcode == op::CooperativeMatrixStoreNV) {
        const bool load = n.opcode == op::CooperativeMatrixLoadNV;
        const uint32_t columnMajor = word(n, load ? 5 : 4);
        const Instruction* d = defining(columnMajor);
        if (!d || (d->opcode != op::ConstantTrue && d->opcode != op::ConstantFalse))
          refuse(std::string(load ? "OpCooperativeMatrixLoadNV %" + std::to_string(n.result)
                                  : "an OpCooperativeMatrixStoreNV (word " + std::to_string(n.offset) + ")") +
                 ": its ColumnMajor %" + std::to_string(columnMajor) +
                 " is no OpConstantTrue or OpConstantFalse (a specialization constant?): the KHR MemoryLayout "
                 "would have to follow it");
        layout_[i] = d->opcode == op::ConstantTrue ? ColumnMajor : RowMajor;
        constants_[layout_[i]] = 0;
      } else if (n.opcode == op::CooperativeMatrixMulAddNV) {
        uint32_t mask = 0;
        const std::pair<uint32_t, uint32_t> operands[] = {{typeOf(word(n, 3)), MatrixASigned},
                                                          {typeOf(word(n, 4)), MatrixBSigned},
                                                          {typeOf(word(n, 5)), MatrixCSigned},
                                                          {n.type, MatrixResultSigned}};
        for (const auto& operand : operands) {
          const uint32_t component = word(instructions_[indexOf(operand.first)], 2);
          if (intType(component).second == 1) mask |= operand.second;
        }
        mask_[i] = mask;
      }
    }
    for (const auto& entry : matrixTypes_) constants_[entry.second] = 0;
  }

  // The Use and MemoryLayout constants: existing OpConstants of the 32-bit
  // type declared before the first matrix type, or new ids.
  void planConstants() {
    bound_ = in_[3];
    for (size_t i = 0; i + 1 < firstMatrixType_; ++i) {
      const Instruction& n = instructions_[i];
      if (n.opcode == op::Constant && n.type == intType_ && n.count == 4) {
        const auto it = constants_.find(word(n, 3));
        if (it != constants_.end() && it->second == 0) it->second = n.result;
      }
    }
    for (auto& entry : constants_)
      if (entry.second == 0) {
        entry.second = bound_++;
        added_.push_back(entry.first);
      }
  }

  void append(std::vector<uint32_t>& out, uint32_t opcode, std::vector<uint32_t> operands) const {
    out.push_back(static_cast<uint32_t>(operands.size() + 1) << 16 | opcode);
    out.insert(out.end(), operands.begin(), operands.end());
  }

  std::vector<uint32_t> emit() const {
    std::vector<uint32_t> out(in_.begin(), in_.begin() + kHeaderWords);
    out[3] = bound_;
    out.reserve(in_.size() + 8 * added_.size() + 4 * matrixTypes_.size());
    for (size_t i = 0; i < instructions_.size(); ++i) {
      const Instruction& n = instructions_[i];
      const uint32_t* w = words(n);
      if (i + 1 == firstMatrixType_)
        for (uint32_t value : added_) append(out, op::Constant, {intType_, constants_.at(value), value});
      switch (n.opcode) {
        case op::Capability:
          if (i + 1 == nvCapability_) {
            if (!shader_) append(out, op::Capability, {capability::Shader});
            append(out, op::Capability, {capability::CooperativeMatrixKHR});
          } else if (w[1] != capability::CooperativeMatrixNV) {  // a repeated NV capability goes
            out.insert(out.end(), w, w + n.count);
          }
          continue;
        case op::Extension:
          if (nvExtensions_.count(i) == 0)
            out.insert(out.end(), w, w + n.count);
          else if (i == *nvExtensions_.begin())  // a repeated NV extension goes
            append(out, op::Extension, encodeString(kKhrExtension));
          continue;
        case op::TypeCooperativeMatrixNV:
          append(out, op::TypeCooperativeMatrixKHR,
                 {w[1], w[2], w[3], w[4], w[5], constants_.at(matrixTypes_.at(n.result))});
          continue;
        case op::CooperativeMatrixLoadNV: {
          // RT R Pointer Stride ColumnMajor [Memory Access] -> RT R Pointer MemoryLayout Stride [Memory Operand]
          std::vector<uint32_t> operands{w[1], w[2], w[3], constants_.at(layout_.at(i)), w[4]};
          operands.insert(operands.end(), w + 6, w + n.count);
          append(out, op::CooperativeMatrixLoadKHR, operands);
          continue;
        }
        case op::CooperativeMatrixStoreNV: {
          // Pointer Object Stride ColumnMajor [Memory Access] -> Pointer Object MemoryLayout Stride [Memory Operand]
          std::vector<uint32_t> operands{w[1], w[2], constants_.at(layout_.at(i)), w[3]};
          operands.insert(operands.end(), w + 5, w + n.count);
          append(out, op::CooperativeMatrixStoreKHR, operands);
          continue;
        }
        case op::CooperativeMatrixMulAddNV: {
          std::vector<uint32_t> operands(w + 1, w + 6);
          if (mask_.at(i)) operands.push_back(mask_.at(i));
          append(out, op::CooperativeMatrixMulAddKHR, operands);
          continue;
        }
        case op::CooperativeMatrixLengthNV:
          append(out, op::CooperativeMatrixLengthKHR, {w[1], w[2], w[3]});
          continue;
        default:
          out.insert(out.end(), w, w + n.count);
      }
    }
    return out;
  }

  const std::vector<uint32_t>& in_;
  std::vector<Instruction> instructions_;
  std::unordered_map<uint32_t, size_t> definition_;  // result id -> instruction
  std::map<uint32_t, uint32_t> matrixTypes_;         // NV type -> Use
  size_t nvCapability_ = 0, firstMatrixType_ = 0;    // instruction index + 1, 0: none
  std::set<size_t> nvExtensions_;
  bool shader_ = false;
  uint32_t intType_ = 0, bound_ = 0;
  std::map<uint32_t, uint32_t> constants_;              // Use or MemoryLayout value -> its OpConstant
  std::vector<uint32_t> added_;                         // values whose OpConstant is new
  std::unordered_map<size_t, uint32_t> layout_, mask_;  // per load/store, per multiply-add
};

}  // namespace

std::vector<uint32_t> translateNvCooperativeMatrixToKhr(const std::vector<uint32_t>& module) {
  return Translator(module).run();
}

}  // namespace spirv
}  // namespace vkdml
