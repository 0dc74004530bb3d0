// tools/spirv_nv_to_khr: SPV_NV_cooperative_matrix modules into
// SPV_KHR_cooperative_matrix ones (no device needed). The spirv-val and
// spirv-dis of Debian bookworm (SPIRV-Tools 2023.1) know no KHR cooperative
// matrix (the capability 6022 already stops them), so checkTranslation
// compares the KHR words with the NV module instruction by instruction,
// with the rules of SPV_KHR_cooperative_matrix; SPIRV-Tools validates the NV
// inputs.
#include <doctest/doctest.h>
#include <spirv-tools/libspirv.h>
#include <spirv-tools/libspirv.hpp>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels.hpp"
#include "nv_to_khr.hpp"

namespace {

namespace sp = vkdml::spirv;
namespace op = vkdml::spirv::op;

// Opcodes beyond nv_to_khr.hpp's.
constexpr uint32_t kMemoryModel = 14, kEntryPoint = 15, kExecutionMode = 16, kTypeVoid = 19, kTypeBool = 20,
                   kTypeArray = 28, kTypePointer = 32, kTypeFunction = 33, kSpecConstantTrue = 48, kFunction = 54,
                   kFunctionEnd = 56, kVariable = 59, kAccessChain = 65, kDecorate = 71, kCompositeConstruct = 80,
                   kSConvert = 114, kLabel = 248, kReturn = 253;
constexpr uint32_t kWorkgroup = 4;  // storage class

std::vector<uint32_t> stringWords(const std::string& text) {
  std::vector<uint32_t> words((text.size() + 4) / 4, 0u);
  for (size_t i = 0; i < text.size(); ++i) words[i / 4] += uint32_t(uint8_t(text[i])) << (8 * (i % 4));
  return words;
}

// A module written instruction by instruction.
struct Module {
  std::vector<uint32_t> words;
  Module(uint32_t bound) : words{0x07230203u, 0x00010300u, 0u, bound, 0u} {}
  void op(uint32_t opcode, std::vector<uint32_t> operands) {
    words.push_back(static_cast<uint32_t>(operands.size() + 1) << 16 | opcode);
    words.insert(words.end(), operands.begin(), operands.end());
  }
  void str(uint32_t opcode, std::vector<uint32_t> before, const std::string& text) {
    const std::vector<uint32_t> s = stringWords(text);
    before.insert(before.end(), s.begin(), s.end());
    op(opcode, before);
  }
};

// The hand-written module's ids. A: uint8 rowsA x 32 (rowsA a
// specialization constant), B: int8 32 x 16, C: int32 rowsA x 16, C8: int8
// rowsA x 16 (C converted). %uint_1 comes before the first matrix type
// (the translation reuses it), %uint_0 and %uint_2 after it (new constants
// 0 and 2: ids kBound and kBound + 1).
enum : uint32_t {
  kVoid = 1,
  kFn,
  kUint,
  kInt,
  kUchar,
  kChar,
  kBool,
  kTrue,
  kFalse,
  kScope,
  kU16,
  kRowsA,
  kU32,
  kU256,
  kU1,
  kInt0,
  kA,
  kB,
  kC,
  kC8,
  kU0,
  kU2,
  kArr,
  kPtrArr,
  kPtrUint,
  kTiles,
  kMain,
  kEntry,
  kP0,
  kLoadA,
  kLoadB,
  kCval,
  kD,
  kP1,
  kD8,
  kLen,
  kBound
};

struct Variant {
  bool khr = false;  // the expected translation, written out
  bool noShader = false, noMemoryModel = false, sameAB = false, specColumnMajor = false, rows64 = false,
       specLength = false;
};

std::vector<uint32_t> handModule(const Variant& v) {
  const uint32_t extra = kBound;  // ids of the refused variants' additions
  const bool extraIds = v.rows64 || v.specColumnMajor || v.specLength;
  Module m(v.khr ? kBound + 2 : extraIds ? kBound + 4 : kBound);
  if (!v.noShader) m.op(op::Capability, {sp::capability::Shader});
  m.op(op::Capability, {39});                // Int8
  if (v.rows64) m.op(op::Capability, {11});  // Int64
  if (!v.noMemoryModel) m.op(op::Capability, {sp::capability::VulkanMemoryModel});
  m.op(op::Capability, {v.khr ? sp::capability::CooperativeMatrixKHR : sp::capability::CooperativeMatrixNV});
  m.str(op::Extension, {}, "SPV_KHR_vulkan_memory_model");
  m.str(op::Extension, {}, v.khr ? "SPV_KHR_cooperative_matrix" : "SPV_NV_cooperative_matrix");
  m.op(kMemoryModel, {0, 3});                   // Logical Vulkan
  m.str(kEntryPoint, {5, kMain}, "main");       // GLCompute
  m.op(kExecutionMode, {kMain, 17, 32, 1, 1});  // LocalSize
  m.str(op::Name, {kA}, "A");
  m.op(kDecorate, {kRowsA, 1, 0});  // SpecId 0
  m.op(kTypeVoid, {kVoid});
  m.op(kTypeFunction, {kFn, kVoid});
  m.op(op::TypeInt, {kUint, 32, 0});
  m.op(op::TypeInt, {kInt, 32, 1});
  m.op(op::TypeInt, {kUchar, 8, 0});
  m.op(op::TypeInt, {kChar, 8, 1});
  m.op(kTypeBool, {kBool});
  m.op(op::ConstantTrue, {kBool, kTrue});
  m.op(op::ConstantFalse, {kBool, kFalse});
  m.op(op::Constant, {kUint, kScope, 3});  // Subgroup
  m.op(op::Constant, {kUint, kU16, 16});
  m.op(op::SpecConstant, {kUint, kRowsA, 16});
  m.op(op::Constant, {kUint, kU32, 32});
  m.op(op::Constant, {kUint, kU256, 256});
  m.op(op::Constant, {kUint, kU1, 1});
  m.op(op::Constant, {kInt, kInt0, 0});
  if (v.rows64) {
    m.op(op::TypeInt, {extra, 64, 0});
    m.op(op::Constant, {extra, extra + 1, 16, 0});
  }
  if (v.specColumnMajor) m.op(kSpecConstantTrue, {kBool, extra + 2});
  if (v.khr) {
    const uint32_t use0 = kBound, use2 = kBound + 1;
    m.op(op::Constant, {kUint, use0, 0});
    m.op(op::Constant, {kUint, use2, 2});
    m.op(op::TypeCooperativeMatrixKHR, {kA, kUchar, kScope, kRowsA, kU32, use0});
    m.op(op::TypeCooperativeMatrixKHR, {kB, kChar, kScope, kU32, kU16, kU1});
    m.op(op::TypeCooperativeMatrixKHR, {kC, kInt, kScope, kRowsA, kU16, use2});
    m.op(op::TypeCooperativeMatrixKHR, {kC8, kChar, kScope, kRowsA, kU16, use2});
  } else {
    m.op(op::TypeCooperativeMatrixNV, {kA, kUchar, kScope, kRowsA, kU32});
    m.op(op::TypeCooperativeMatrixNV, {kB, kChar, kScope, kU32, kU16});
    m.op(op::TypeCooperativeMatrixNV, {kC, kInt, kScope, kRowsA, kU16});
    m.op(op::TypeCooperativeMatrixNV, {kC8, kChar, kScope, v.rows64 ? extra + 1 : kRowsA, kU16});
  }
  if (v.specLength) m.op(op::SpecConstantOp, {kUint, extra + 3, op::CooperativeMatrixLengthNV, kA});
  m.op(op::Constant, {kUint, kU0, 0});
  m.op(op::Constant, {kUint, kU2, 2});
  m.op(kTypeArray, {kArr, kUint, kU256});
  m.op(kTypePointer, {kPtrArr, kWorkgroup, kArr});
  m.op(kTypePointer, {kPtrUint, kWorkgroup, kUint});
  m.op(kVariable, {kPtrArr, kTiles, kWorkgroup});
  m.op(kFunction, {kVoid, kMain, 0, kFn});
  m.op(kLabel, {kEntry});
  m.op(kAccessChain, {kPtrUint, kP0, kTiles, kU0});
  // Memory access: MakePointerVisible|NonPrivatePointer 0x30 on a load,
  // MakePointerAvailable|NonPrivatePointer 0x28 on a store, Workgroup scope.
  const uint32_t rowMajor = kBound, columnMajor = kU1;
  if (v.khr) {
    m.op(op::CooperativeMatrixLoadKHR, {kA, kLoadA, kP0, rowMajor, kU16});
    m.op(op::CooperativeMatrixLoadKHR, {kB, kLoadB, kP0, columnMajor, kU16, 0x30, kU2});
  } else {
    m.op(op::CooperativeMatrixLoadNV, {kA, kLoadA, kP0, kU16, kFalse});
    m.op(op::CooperativeMatrixLoadNV, {kB, kLoadB, kP0, kU16, v.specColumnMajor ? extra + 2 : kTrue, 0x30, kU2});
  }
  m.op(kCompositeConstruct, {kC, kCval, kInt0});
  if (v.khr)  // B int8, C and the result int32: signed; A uint8
    m.op(op::CooperativeMatrixMulAddKHR,
         {kC, kD, kLoadA, kLoadB, kCval, sp::MatrixBSigned | sp::MatrixCSigned | sp::MatrixResultSigned});
  else
    m.op(op::CooperativeMatrixMulAddNV, {kC, kD, kLoadA, v.sameAB ? kLoadA : kLoadB, kCval});
  m.op(kAccessChain, {kPtrUint, kP1, kTiles, kU32});
  if (v.khr)
    m.op(op::CooperativeMatrixStoreKHR, {kP1, kD, columnMajor, kU16});
  else
    m.op(op::CooperativeMatrixStoreNV, {kP1, kD, kU16, kTrue});
  m.op(kSConvert, {kC8, kD8, kD});
  if (v.khr)
    m.op(op::CooperativeMatrixStoreKHR, {kP1, kD8, rowMajor, kU16, 0x28, kU2});
  else
    m.op(op::CooperativeMatrixStoreNV, {kP1, kD8, kU16, kFalse, 0x28, kU2});
  m.op(v.khr ? op::CooperativeMatrixLengthKHR : op::CooperativeMatrixLengthNV, {kUint, kLen, kA});
  m.op(kReturn, {});
  m.op(kFunctionEnd, {});
  return m.words;
}

std::string refusal(const std::vector<uint32_t>& module) {
  try {
    sp::translateNvCooperativeMatrixToKhr(module);
  } catch (const sp::TranslationError& e) {
    return e.what();
  }
  return "(translated)";
}
bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool validNv(const std::vector<uint32_t>& module, std::string& error) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& at, const char* message) {
    error += "word " + std::to_string(at.index) + ": " + message + "\n";
  });
  return tools.Validate(module);
}

// Value id -> type id, by SPIRV-Tools (the NV module; ids keep their meaning).
std::unordered_map<uint32_t, uint32_t> valueTypes(const std::vector<uint32_t>& module) {
  std::unordered_map<uint32_t, uint32_t> types;
  spv_context context = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
  const spv_result_t result = spvBinaryParse(
      context, &types, module.data(), module.size(), nullptr,
      [](void* user, const spv_parsed_instruction_t* i) {
        if (i->result_id && i->type_id)
          (*static_cast<std::unordered_map<uint32_t, uint32_t>*>(user))[i->result_id] = i->type_id;
        return SPV_SUCCESS;
      },
      nullptr);
  spvContextDestroy(context);
  REQUIRE(result == SPV_SUCCESS);
  return types;
}

struct Inst {
  uint32_t opcode, count;
  const uint32_t* w;
  std::vector<uint32_t> words() const { return std::vector<uint32_t>(w, w + count); }
  std::vector<uint32_t> tail(uint32_t from) const {
    return std::vector<uint32_t>(w + std::min(from, count), w + count);
  }
};
std::vector<Inst> split(const std::vector<uint32_t>& m) {
  REQUIRE(m.size() >= 5);
  std::vector<Inst> out;
  for (size_t i = 5; i < m.size();) {
    const uint32_t count = m[i] >> 16;
    REQUIRE(count >= 1);
    REQUIRE(i + count <= m.size());
    out.push_back({m[i] & 0xFFFFu, count, &m[i]});
    i += count;
  }
  return out;
}
std::string stringAt(const Inst& n, uint32_t from) {
  return std::string(reinterpret_cast<const char*>(n.w + from));
}

struct MatrixType {
  uint32_t rows, columns, width, isSigned, use;
  std::vector<uint32_t> fields() const { return {rows, columns, width, isSigned, use}; }
  bool operator<(const MatrixType& o) const { return fields() < o.fields(); }
  bool operator==(const MatrixType& o) const { return fields() == o.fields(); }
};
struct Summary {
  std::map<uint32_t, MatrixType> types;                      // KHR type id -> what it is
  std::vector<std::pair<uint32_t, uint32_t>> loads, stores;  // (matrix type, MemoryLayout)
  std::vector<uint32_t> masks;                               // per multiply-add
  size_t added = 0;                                          // new constants
};

// The KHR module against its NV source: every NV instruction in place,
// translated by the rules of SPV_KHR_cooperative_matrix, everything else
// word for word; new instructions only OpConstants of 32-bit integers with
// new ids, just before the first matrix type (and OpCapability Shader where
// the NV module left it implicit).
Summary checkTranslation(const std::vector<uint32_t>& nv, const std::vector<uint32_t>& khr) {
  const std::vector<Inst> a = split(nv), b = split(khr);
  const std::unordered_map<uint32_t, uint32_t> typeOf = valueTypes(nv);
  CHECK(khr[0] == nv[0]);
  CHECK(khr[1] == nv[1]);
  CHECK(khr[2] == nv[2]);
  CHECK(khr[4] == nv[4]);
  const uint32_t oldBound = nv[3];
  // The KHR module's integer types and constants, where each is declared.
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> ints;     // id -> (width, signedness)
  std::map<uint32_t, std::pair<uint32_t, size_t>> constants;  // 32-bit id -> (value, index)
  size_t firstFunction = b.size();
  for (size_t i = 0; i < b.size(); ++i) {
    const Inst& n = b[i];
    if (n.opcode == op::TypeInt) ints[n.w[1]] = {n.w[2], n.w[3]};
    if ((n.opcode == op::Constant || n.opcode == op::SpecConstant) && n.count == 4 && ints.count(n.w[1]) &&
        ints[n.w[1]].first == 32)
      constants[n.w[2]] = {n.w[3], i};
    if (n.opcode == kFunction && firstFunction == b.size()) firstFunction = i;
  }
  std::set<uint32_t> trueIds;
  for (const Inst& n : a)
    if (n.opcode == op::ConstantTrue) trueIds.insert(n.w[2]);
  const bool nvShader = std::any_of(
      a.begin(), a.end(), [](const Inst& n) { return n.opcode == op::Capability && n.w[1] == sp::capability::Shader; });
  // A constant's value (non-specialization, declared before index `before`).
  auto constant = [&](uint32_t id, size_t before) {
    const auto it = constants.find(id);
    REQUIRE(it != constants.end());
    CHECK(b[it->second.second].opcode == op::Constant);
    CHECK(it->second.second < before);
    return it->second.first;
  };
  Summary s;
  std::vector<size_t> added;
  size_t firstType = SIZE_MAX, j = 0;
  bool shaderAdded = false;
  for (const Inst& n : a) {
    for (;; ++j) {
      REQUIRE(j < b.size());
      const Inst& t = b[j];
      if (t.opcode == op::Constant && t.w[2] >= oldBound) {
        added.push_back(j);
        CHECK(ints.count(t.w[1]));
        CHECK(ints[t.w[1]].first == 32);
      } else if (t.opcode == op::Capability && t.w[1] == sp::capability::Shader && !nvShader && !shaderAdded) {
        shaderAdded = true;
      } else {
        break;
      }
    }
    const Inst& t = b[j];
    INFO("NV instruction " << n.opcode << ", KHR instruction " << j << " (" << t.opcode << ")");
    switch (n.opcode) {
      case op::Capability:
        if (n.w[1] == sp::capability::CooperativeMatrixNV)
          CHECK(t.words() == std::vector<uint32_t>{2u << 16 | op::Capability, sp::capability::CooperativeMatrixKHR});
        else
          CHECK(t.words() == n.words());
        break;
      case op::Extension:
        if (stringAt(n, 1) == sp::kNvExtension) {
          CHECK(t.opcode == op::Extension);
          CHECK(stringAt(t, 1) == sp::kKhrExtension);
          CHECK(t.count == 1 + (std::strlen(sp::kKhrExtension) + 4) / 4);
        } else {
          CHECK(t.words() == n.words());
        }
        break;
      case op::TypeCooperativeMatrixNV: {
        // Component Type, Scope, Rows, Columns as they were; Use a constant declared before.
        REQUIRE(t.opcode == op::TypeCooperativeMatrixKHR);
        REQUIRE(t.count == 7);
        CHECK(std::vector<uint32_t>(t.w + 1, t.w + 6) == n.tail(1));
        if (firstType == SIZE_MAX) firstType = j;
        const uint32_t use = constant(t.w[6], j);
        CHECK(use <= sp::MatrixAccumulator);
        const auto dimension = [&](uint32_t id) { return constants.count(id) ? constants[id].first : 0u; };
        const auto component = ints.count(t.w[2]) ? ints[t.w[2]] : std::pair<uint32_t, uint32_t>{0, 0};
        s.types[t.w[1]] = {dimension(t.w[4]), dimension(t.w[5]), component.first, component.second, use};
        break;
      }
      case op::CooperativeMatrixLoadNV:
        // RT R Pointer Stride ColumnMajor [Memory Access] -> RT R Pointer MemoryLayout Stride [Memory Operand]
        REQUIRE(t.opcode == op::CooperativeMatrixLoadKHR);
        REQUIRE(t.count == n.count);
        CHECK(t.w[1] == n.w[1]);
        CHECK(t.w[2] == n.w[2]);
        CHECK(t.w[3] == n.w[3]);
        CHECK(constant(t.w[4], firstFunction) == (trueIds.count(n.w[5]) ? sp::ColumnMajor : sp::RowMajor));
        CHECK(t.w[5] == n.w[4]);
        CHECK(t.tail(6) == n.tail(6));
        s.loads.push_back({t.w[1], constant(t.w[4], firstFunction)});
        break;
      case op::CooperativeMatrixStoreNV:
        // Pointer Object Stride ColumnMajor [Memory Access] -> Pointer Object MemoryLayout Stride [Memory Operand]
        REQUIRE(t.opcode == op::CooperativeMatrixStoreKHR);
        REQUIRE(t.count == n.count);
        CHECK(t.w[1] == n.w[1]);
        CHECK(t.w[2] == n.w[2]);
        CHECK(constant(t.w[3], firstFunction) == (trueIds.count(n.w[4]) ? sp::ColumnMajor : sp::RowMajor));
        CHECK(t.w[4] == n.w[3]);
        CHECK(t.tail(5) == n.tail(5));
        s.stores.push_back({typeOf.at(n.w[2]), constant(t.w[3], firstFunction)});
        break;
      case op::CooperativeMatrixMulAddNV: {
        REQUIRE(t.opcode == op::CooperativeMatrixMulAddKHR);
        CHECK(std::vector<uint32_t>(t.w + 1, t.w + 6) == std::vector<uint32_t>(n.w + 1, n.w + 6));
        // Result, A, B, C: their types' Use, and the signedness of their components.
        const uint32_t types[] = {t.w[1], typeOf.at(t.w[3]), typeOf.at(t.w[4]), typeOf.at(t.w[5])};
        const uint32_t uses[] = {sp::MatrixAccumulator, sp::MatrixA, sp::MatrixB, sp::MatrixAccumulator};
        const uint32_t bits[] = {sp::MatrixResultSigned, sp::MatrixASigned, sp::MatrixBSigned, sp::MatrixCSigned};
        uint32_t mask = 0;
        for (int k = 0; k < 4; ++k) {
          REQUIRE(s.types.count(types[k]));
          CHECK(s.types[types[k]].use == uses[k]);
          if (s.types[types[k]].isSigned) mask |= bits[k];
        }
        CHECK(t.count == (mask ? 7u : 6u));
        s.masks.push_back(t.count == 7 ? t.w[6] : 0u);
        CHECK(s.masks.back() == mask);
        break;
      }
      case op::CooperativeMatrixLengthNV:
        CHECK(t.opcode == op::CooperativeMatrixLengthKHR);
        CHECK(t.tail(1) == n.tail(1));
        break;
      default:
        CHECK(t.words() == n.words());
    }
    ++j;
  }
  CHECK(j == b.size());
  CHECK(shaderAdded == !nvShader);
  // The new constants: new ids up to the new bound, together just before the first matrix type.
  s.added = added.size();
  CHECK(khr[3] == oldBound + added.size());
  std::set<uint32_t> ids;
  for (size_t k = 0; k < added.size(); ++k) {
    ids.insert(b[added[k]].w[2]);
    CHECK(b[added[k]].w[2] < khr[3]);
    CHECK(added[k] + added.size() - k == firstType);
  }
  CHECK(ids.size() == added.size());
  // Nothing of SPV_NV_cooperative_matrix is left.
  for (const Inst& t : b) {
    CHECK(!(t.opcode >= op::TypeCooperativeMatrixNV && t.opcode <= op::CooperativeMatrixLengthNV));
    if (t.opcode == op::Capability) CHECK(t.w[1] != sp::capability::CooperativeMatrixNV);
    if (t.opcode == op::Extension) CHECK(stringAt(t, 1) != sp::kNvExtension);
  }
  return s;
}

// Whether the build's SPIR-V files are here (not where the test binary was
// copied to another machine, as for the GPU runs); says so where not.
bool builtSpirvHere() {
  if (std::ifstream(VKDML_SPIRV_DIR "/copy_e4_i32.spv").good()) return true;
  MESSAGE("skipped: the build's SPIR-V (" VKDML_SPIRV_DIR ") is not on this machine");
  return false;
}

std::vector<uint32_t> readSpirv(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  INFO(path);
  REQUIRE(file);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() % 4 == 0);
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

}  // namespace

TEST_CASE("spirv_nv_to_khr: a hand-written NV module translates to the expected KHR words") {
  const std::vector<uint32_t> nv = handModule({});
  std::string error;
  CHECK_MESSAGE(validNv(nv, error), error);  // a valid NV module, by SPIRV-Tools
  const std::vector<uint32_t> khr = sp::translateNvCooperativeMatrixToKhr(nv);
  const std::vector<uint32_t> expected = handModule({/*khr=*/true});
  CHECK(khr == expected);
  const Summary s = checkTranslation(nv, khr);
  CHECK(s.added == 2);  // 0 and 2 (%uint_0 and %uint_2 come after the matrix types); %uint_1 reused
  CHECK(s.types.at(kA).use == sp::MatrixA);
  CHECK(s.types.at(kB).use == sp::MatrixB);
  CHECK(s.types.at(kC).use == sp::MatrixAccumulator);
  CHECK(s.types.at(kC8).use == sp::MatrixAccumulator);  // converted from C
  CHECK(s.masks == std::vector<uint32_t>{sp::MatrixBSigned | sp::MatrixCSigned | sp::MatrixResultSigned});
}

TEST_CASE("spirv_nv_to_khr: the implicit Shader of CooperativeMatrixNV becomes explicit") {
  Variant v;
  v.noShader = true;
  const std::vector<uint32_t> nv = handModule(v);
  const std::vector<uint32_t> khr = sp::translateNvCooperativeMatrixToKhr(nv);
  checkTranslation(nv, khr);
  const std::vector<Inst> b = split(khr);
  CHECK(b[2].words() == std::vector<uint32_t>{2u << 16 | op::Capability, sp::capability::Shader});
  CHECK(b[3].words() == std::vector<uint32_t>{2u << 16 | op::Capability, sp::capability::CooperativeMatrixKHR});
}

TEST_CASE("spirv_nv_to_khr: what the translation refuses, and why") {
  Variant v;
  SUBCASE("one matrix type as both A and B") {
    v.sameAB = true;
    const std::string why = refusal(handModule(v));
    INFO(why);
    CHECK(contains(why, "OpTypeCooperativeMatrixNV %17 (\"A\") (%12x32 of uint8) is used as MatrixAKHR"));
    CHECK(contains(why, "as MatrixBKHR (operand B of OpCooperativeMatrixMulAddNV %33)"));
    CHECK(contains(why, "splitting an NV type into one type per use is not implemented"));
  }
  SUBCASE("a specialization constant as ColumnMajor") {
    v.specColumnMajor = true;
    const std::string why = refusal(handModule(v));
    INFO(why);
    CHECK(contains(why, "OpCooperativeMatrixLoadNV %31: its ColumnMajor %39 is no OpConstantTrue or OpConstantFalse"));
  }
  SUBCASE("no Vulkan memory model") {
    v.noMemoryModel = true;
    CHECK(contains(refusal(handModule(v)), "lacks the VulkanMemoryModel capability"));
  }
  SUBCASE("64-bit rows") {
    v.rows64 = true;
    CHECK(contains(refusal(handModule(v)), "its Rows %38 is no 32-bit integer constant instruction"));
  }
  SUBCASE("the length as a specialization constant") {
    v.specLength = true;
    CHECK(contains(refusal(handModule(v)), "OpSpecConstantOp CooperativeMatrixLengthNV %40"));
  }
  SUBCASE("a module without cooperative matrices") {
    if (!builtSpirvHere()) return;
    const std::vector<uint32_t> copy = readSpirv(VKDML_SPIRV_DIR "/copy_e4_i32.spv");
    CHECK(contains(refusal(copy), "declares no CooperativeMatrixNV capability"));
  }
  SUBCASE("a translated module") {
    const std::vector<uint32_t> khr = sp::translateNvCooperativeMatrixToKhr(handModule(v));
    CHECK(contains(refusal(khr), "SPIRV-Tools cannot parse the module"));  // 2023.1 knows no KHR matrices
  }
  SUBCASE("no SPIR-V") {
    CHECK(contains(refusal({1, 2, 3}), "a module of 3 words has no header"));
    std::vector<uint32_t> swapped = handModule(v);
    swapped[0] = 0x03022307u;
    CHECK(contains(refusal(swapped), "(a module of the other endianness)"));
    std::vector<uint32_t> cut = handModule(v);
    cut.resize(cut.size() - 3);  // OpFunctionEnd, OpReturn and a word of the length
    CHECK(contains(refusal(cut), "SPIRV-Tools cannot parse the module"));
  }
}

// Every KHR cooperative-matrix variant of the kernel table (shaders/CMakeLists.txt)
// is the translation of its NV variant (in the table for 16x16x32
// fragments, built beside it for the other shapes), and the translation
// keeps what the kernel does: A (M x K int8) row-major, B (K x N int8)
// column-major, the accumulator (M x N int32) stored column-major, s8 x
// s8 + s32 -> s32 (fragments.glsl), M x N x K as the name's _f suffix says
// (16x16x32 without one).
TEST_CASE("spirv_nv_to_khr: every NV cooperative-matrix kernel translates, as the build's KHR kernels") {
  if (!builtSpirvHere()) return;
  size_t nvVariants = 0, khrVariants = 0;
  std::map<std::string, size_t> shapes;  // suffix -> KHR variants
  for (const std::string name : vkdml::detail::kKernelNames) {
    if (contains(name, "coopmat_nv")) ++nvVariants;
    const size_t at = name.find("coopmat_khr");
    if (at == std::string::npos) continue;
    ++khrVariants;
    const std::string nvName = name.substr(0, at) + "coopmat_nv" + name.substr(at + 11);
    INFO(nvName << " -> " << name);
    const size_t f = name.rfind("_f");
    uint32_t m = 16, n = 16, k = 32;
    if (f != std::string::npos) REQUIRE(std::sscanf(name.c_str() + f, "_f%ux%ux%u", &m, &n, &k) == 3);
    ++shapes[f == std::string::npos ? "" : name.substr(f)];
    const std::vector<uint32_t> nv = readSpirv(VKDML_SPIRV_DIR "/" + nvName + ".spv");
    const std::vector<uint32_t> khr = sp::translateNvCooperativeMatrixToKhr(nv);
    CHECK(readSpirv(VKDML_SPIRV_DIR "/" + name + ".spv") == khr);
    const Summary s = checkTranslation(nv, khr);
    std::set<MatrixType> types;
    std::map<uint32_t, uint32_t> uses;
    for (const auto& t : s.types) {
      types.insert(t.second);
      uses[t.first] = t.second.use;
    }
    CHECK(types == std::set<MatrixType>{
                       {m, k, 8, 1, sp::MatrixA}, {k, n, 8, 1, sp::MatrixB}, {m, n, 32, 1, sp::MatrixAccumulator}});
    CHECK(!s.masks.empty());
    for (uint32_t mask : s.masks)
      CHECK(mask == (sp::MatrixASigned | sp::MatrixBSigned | sp::MatrixCSigned | sp::MatrixResultSigned));
    CHECK(!s.loads.empty());
    for (const auto& load : s.loads)
      CHECK(load.second == (uses[load.first] == sp::MatrixA ? sp::RowMajor : sp::ColumnMajor));
    // The epilogue stores accumulators column-major, and row-major where its
    // passes store channel quads (shaders/coopmat/epilogue.glsl): both in every kernel.
    std::set<uint32_t> storeLayouts;
    for (const auto& store : s.stores) {
      CHECK(uses[store.first] == sp::MatrixAccumulator);
      storeLayouts.insert(store.second);
    }
    CHECK(storeLayouts == std::set<uint32_t>{sp::RowMajor, sp::ColumnMajor});
  }
  // 3 tiles x 2 offset widths x 3 packings; at 16x16x32 only, the 16-warp
  // tiles' 2 x 2, the 8-warp 64-column tiles' 3 (32-bit offsets), the
  // 96-row tiles' 1 (32-bit offsets, packed, one step ahead) and the 64-row
  // tiles' 2 (32-bit offsets, nothing packed or packed one step ahead).
  CHECK(nvVariants == 28);
  CHECK(shapes == std::map<std::string, size_t>{{"", 28}, {"_f16x8x32", 18}, {"_f16x16x16", 18}, {"_f8x16x32", 18}});
  CHECK(khrVariants == 28 + 3 * 18);
}
