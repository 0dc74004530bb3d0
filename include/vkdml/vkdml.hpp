// vkdml: DirectML's operators as Vulkan compute shaders.
//
//   auto device = vkdml::Device::create();                 // or Device::adopt(...)
//   vkdml::Operator op = device->createOperator(desc);     // validates every rule
//   vkdml::CompiledOperator kernel = device->compileOperator(op);
//   vkdml::BindingTable table = kernel.createBindingTable();
//   table.bindInputs({{&in, 0, in.size()}});
//   table.bindOutputs({{&out, 0, out.size()}});
//   device->execute(kernel, table);                        // or kernel.record(cmd, table)
//
// Every call that can fail throws vkdml::Error (and nothing else);
// vkdml::validate() reports a descriptor's first broken rule without throwing.
// Threads: a Device, Operators and CompiledOperators may be shared between
// threads; a BindingTable and a command buffer may not
// (docs/errors-and-threads.md).
#ifndef VKDML_VKDML_HPP
#define VKDML_VKDML_HPP

#include <vkdml/DirectML.h>
#include <vulkan/vulkan_core.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(_WIN32)
#define VKDML_API __declspec(dllexport)
#else
#define VKDML_API __attribute__((visibility("default")))
#endif

namespace vkdml {

enum class ErrorCode {
  InvalidArgument,  // a descriptor or binding breaks a rule (DirectML's E_INVALIDARG)
  Unsupported,      // the device lacks a feature the operator needs
  OutOfMemory,
  DeviceLost,
  VulkanError,  // any other failed Vulkan call
  Internal,     // an unexpected failure inside vkdml (a bug): the message says what
};

// An error names the operator (e.g. "DML_SLICE1"), the field (e.g.
// "InputWindowSizes[2]") and, in what(), the rule with the offending values.
class VKDML_API Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string op, std::string field, const std::string& message);
  ErrorCode code() const noexcept { return code_; }
  const std::string& op() const noexcept { return op_; }
  const std::string& field() const noexcept { return field_; }

 private:
  ErrorCode code_;
  std::string op_;
  std::string field_;
};

struct DeviceOptions {
  // Index into vkEnumeratePhysicalDevices or a substring of the device name.
  // Empty: $VKDML_DEVICE, else the first discrete GPU, else an integrated one,
  // else any (lavapipe).
  std::string selector;
  // Enable VK_LAYER_KHRONOS_validation when it is installed. Also enabled by
  // $VKDML_VALIDATION=1.
  bool validation = false;
  // Receives every validation-layer warning and error. Default: print to
  // stderr. It may be called from any thread that uses the Device, at once;
  // it must not call vkdml, and must not throw (what it throws is reported
  // on stderr and dropped).
  std::function<void(const char* message)> onValidationMessage;

  // The most pipelines the Device keeps for reuse (each distinct kernel and
  // specialization, e.g. each convolution geometry, is one or two). Beyond
  // it the least recently used is dropped; compiled operators keep theirs
  // alive. A large cooperative-matrix pipeline holds several MB of driver
  // memory; 64 covers the distinct layers of a large network.
  size_t pipelineCacheLimit = 64;
  // A blob from Device::pipelineCacheData() of an earlier run: the pipelines
  // it holds are not compiled again. One from another device or driver
  // version, or one the driver refuses, is ignored (DeviceInfo::pipelineCacheLoaded says); one that is
  // not a Vulkan pipeline cache at all (too short for its header, an unknown
  // header) is an InvalidArgument error.
  std::vector<uint8_t> pipelineCacheData;
  // Print the driver's statistics of each pipeline compiled (registers,
  // spills, ...) to stderr, where the device has
  // VK_KHR_pipeline_executable_properties: for kernel tuning. Also enabled by
  // $VKDML_PIPELINE_STATISTICS=1.
  bool pipelineStatistics = false;
};

struct DeviceInfo {
  std::string name;
  uint32_t vendorId = 0;
  uint32_t apiVersion = 0;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  // VkPhysicalDeviceDriverProperties (Vulkan 1.2 or VK_KHR_driver_properties;
  // unknown, 0 and empty without either): the CPU plans differ by driver. Mesa's driverVersion is
  // VK_MAKE_VERSION(major, minor, patch); driver is driverName and driverInfo
  // ("llvmpipe Mesa 25.0.7 (LLVM 15.0.6)").
  VkDriverId driverId = VkDriverId(0);
  uint32_t driverVersion = 0;
  std::string driver;
  uint32_t subgroupSize = 0;
  // The subgroup sizes a compute pipeline may require (VK_EXT_subgroup_size_control,
  // core in Vulkan 1.3: AMD's RDNA runs 32 or 64 lanes); both subgroupSize
  // where the device cannot be asked.
  uint32_t minSubgroupSize = 0, maxSubgroupSize = 0;
  bool subgroupShuffleRelative = false;  // in compute shaders
  uint32_t maxComputeSharedMemorySize = 0;
  uint32_t maxComputeWorkGroupCountX = 0;
  // The largest one-dimensional workgroup: maxComputeWorkGroupSize[0] and
  // maxComputeWorkGroupInvocations, the smaller.
  uint32_t maxComputeWorkGroupSizeX = 0;
  uint64_t maxStorageBufferRange = 0;
  uint64_t maxMemoryAllocationSize = 0;  // advisory: larger buffers are tried (NVIDIA allocates them)
  uint64_t maxBufferSize = 0;            // 0: the device does not say (no Vulkan 1.3 or VK_KHR_maintenance4)
  float timestampPeriodNs = 0;           // 0 when the queue has no timestamps
  // NVIDIA's streaming multiprocessors (VK_NV_shader_sm_builtins' shaderSMCount);
  // 0: the device does not say.
  uint32_t multiprocessors = 0;
  bool shaderInt8 = false;
  bool shaderInt16 = false;
  bool shaderFloat16 = false;
  bool storageBuffer8BitAccess = false;
  bool storageBuffer16BitAccess = false;
  bool vulkanMemoryModel = false;
  bool integerDotProduct = false;  // shaderIntegerDotProduct (enabled)
  bool integerDotProduct4x8BitPackedAccelerated = false;
  bool cooperativeMatrixNV = false;  // VK_NV_cooperative_matrix (enabled)
  // An int8 16x16x32 subgroup configuration (s8 x s8 -> s32) with what its
  // kernel needs (shaderInt8, vulkanMemoryModel): the cooperative-matrix
  // convolution path can run.
  bool cooperativeMatrixInt8 = false;
  bool cooperativeMatrixKHR = false;  // VK_KHR_cooperative_matrix (enabled)
  // The subgroup-scope int8 shapes (s8 x s8 -> s32, M x N x K) the device
  // lists for VK_KHR_cooperative_matrix (vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR).
  struct MatrixShape {
    uint32_t m = 0, n = 0, k = 0;
  };
  std::vector<MatrixShape> cooperativeMatrixKHRInt8Shapes;
  // One of them is a shape the KHR cooperative-matrix kernel takes
  // (16x16x32, 16x8x32, 16x16x16 or 8x16x32), with what it needs (shaderInt8,
  // vulkanMemoryModel): the coopmat-khr convolution path can run where the
  // subgroups have 32 lanes.
  bool cooperativeMatrixKHRInt8 = false;
  bool validationEnabled = false;
  bool pipelineCacheLoaded = false;  // DeviceOptions::pipelineCacheData matched this device and the driver took it
};

// A tensor data type's name as DirectML spells it after DML_TENSOR_DATA_TYPE_
// ("FLOAT32", "UINT8", ...), as vkdml::Error messages write it; "UNKNOWN" for
// DML_TENSOR_DATA_TYPE_UNKNOWN and any value DirectML does not define.
VKDML_API const char* toString(DML_TENSOR_DATA_TYPE type);

class Device;
class Buffer;
namespace detail {
struct Access;  // the runtime's way to the objects behind the handles (runtime/core/access.hpp)
}  // namespace detail

// A device-local buffer with a device address. Its storage lives as long as
// any copy of the handle.
class VKDML_API Buffer {
 public:
  Buffer() = default;
  uint64_t size() const noexcept;
  VkBuffer handle() const noexcept;
  VkDeviceAddress address() const noexcept;
  explicit operator bool() const { return impl_ != nullptr; }
  // Synchronous copies through a staging buffer. A buffer's copies and the
  // executions that write it must not overlap in time (the caller orders
  // them); copies of different buffers may run from several threads.
  void upload(const void* data, uint64_t bytes, uint64_t offset = 0);
  void download(void* data, uint64_t bytes, uint64_t offset = 0) const;
  void fill(uint32_t word, uint64_t bytes, uint64_t offset = 0);  // vkCmdFillBuffer

  struct Impl;

 private:
  friend class Device;
  friend struct detail::Access;
  explicit Buffer(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

// How DML_CONVOLUTION_INTEGER runs its implicit GEMM.
enum class ConvolutionPath {
  Auto,               // $VKDML_CONVOLUTION_PATH when the Device was created, else the fastest the device has
  Portable,           // 8-bit loads, int32 multiply-adds: every device
  DotProduct,         // packed 4x8-bit dot products (VK_KHR_shader_integer_dot_product)
  CooperativeMatrix,  // int8 cooperative matrices (VK_NV_cooperative_matrix)
  // The cooperative-matrix kernel (its tiling, staging and zero-point
  // arithmetic) with the matrix operations written out in plain GLSL: slow,
  // for testing that kernel on devices without cooperative matrices.
  CooperativeMatrixEmulated,
  // The cooperative-matrix kernel through the standard extension
  // (VK_KHR_cooperative_matrix: AMD, Intel, NVIDIA and others), its SPIR-V
  // translated at build time from the NV kernel's.
  CooperativeMatrixKHR,
};
// Names as in $VKDML_CONVOLUTION_PATH: "auto", "portable", "dot", "coopmat", "coopmat-emulated",
// "coopmat-khr".
VKDML_API const char* toString(ConvolutionPath path);

// Which operands the cooperative-matrix paths of DML_CONVOLUTION_INTEGER
// pack into the temporary resource before the GEMM (the other paths ignore
// it). Where the packed operands would not fit the packing budget, the GEMM
// gathers them itself whatever this says.
enum class ConvolutionPacking {
  Auto,    // $VKDML_CONVOLUTION_PACKING when the Device was created ("0", "b", "ab" or "nhwc"), else by shape
  None,    // "0": the GEMM gathers both operands
  Filter,  // "b": the filter
  Both,    // "ab": the filter and the im2col matrix of the input
  // "nhwc": the filter, and the input reordered channels-last (with its
  // padding), from which the GEMM reads each row's K step as 32
  // consecutive bytes: where the groups' channels are a multiple of 32,
  // else as Filter. An input whose channels already lie innermost (C stride
  // 1, the other strides and the binding 16-byte aligned) is read in place,
  // not packed, and so is the filter where its rows run (ky, kx, c) (OHWI,
  // or a 1x1 kernel); Auto takes that for every such shape.
  ChannelsLast,
};

// How DML_JOIN, DML_SLICE1 and DML_SCATTER_ND's copy of its input move
// their data.
enum class CopyPath {
  // $VKDML_COPY_PATH when the Device was created ("auto" or "kernel"), else:
  // on a CPU device (lavapipe), transfer commands where the rows are long
  // contiguous runs in both tensors; the copy kernel otherwise.
  Auto,
  Kernel,  // "kernel": the copy kernel on every device
};

// Which kernel the dot-product convolution path runs.
enum class DotKernel {
  Auto,      // $VKDML_DOT_KERNEL when the Device was created, else by shape and device
  Portable,  // the portable kernel's structure with packed dot products: any GEMM width
  // Register tiles over both operands staged through shared memory: GEMMs of
  // 16 or more columns per group (narrower ones take Portable).
  Tiled,
};

struct CompileOptions {
  ConvolutionPath convolutionPath = ConvolutionPath::Auto;
  ConvolutionPacking convolutionPacking = ConvolutionPacking::Auto;
  CopyPath copyPath = CopyPath::Auto;
  // The int8 fragment shape (M x N x K) of the cooperative-matrix
  // convolution paths. 0x0x0: each path's own (coopmat and coopmat-emulated
  // 16x16x32; coopmat-khr the first the device lists of 16x16x32, 16x8x32,
  // 16x16x16, 8x16x32). Otherwise coopmat-khr and coopmat-emulated take one
  // of those four (coopmat-khr where the device lists it; coopmat-emulated
  // so that any device tests the kernel's code for other vendors' shapes),
  // coopmat only 16x16x32. The other paths ignore it.
  DeviceInfo::MatrixShape matrixShape{0, 0, 0};
  // The dot-product path's kernel; the other paths ignore it.
  DotKernel dotKernel = DotKernel::Auto;
};

// DML_BUFFER_BINDING: a range of a buffer. buffer == nullptr binds nothing
// (DML_BINDING_TYPE_NONE), which only optional tensors accept.
struct BufferBinding {
  const Buffer* buffer = nullptr;
  uint64_t offset = 0;
  uint64_t sizeInBytes = 0;
};

struct OperatorPlan;  // internal: validated, normalized form of a descriptor

// A validated operator. The descriptor arrays the caller passed may be freed
// once it exists.
class VKDML_API Operator {
 public:
  Operator() = default;
  DML_OPERATOR_TYPE type() const;
  const char* name() const;  // "DML_JOIN", ...
  uint32_t inputCount() const;
  uint32_t outputCount() const;
  explicit operator bool() const { return plan_ != nullptr; }

 private:
  friend class Device;
  friend class CompiledOperator;
  friend struct detail::Access;
  explicit Operator(std::shared_ptr<const OperatorPlan> plan) : plan_(std::move(plan)) {}
  std::shared_ptr<const OperatorPlan> plan_;
};

class CompiledOperator;

// DML_BINDING_PROPERTIES: the memory a compiled operator needs besides its
// tensors (CompiledOperator::bindingProperties). DirectML's
// RequiredDescriptorCount is left out: vkdml's kernels reach every buffer
// through device addresses, so a binding table needs no descriptors.
struct BindingProperties {
  // Scratch for one execution (ScatterND with long slices: a bit per
  // target; ConvolutionInteger's packed operands). Its content need not
  // survive between executions, so one buffer may serve several operators
  // whose executions the caller orders.
  uint64_t temporaryResourceSize = 0;
  // State that the initializer (Device::initialize) writes once and every
  // execution reads: copies of the inputs flagged DML_TENSOR_FLAG_OWNED_BY_DML,
  // packed where the operator packs them. 0 without such inputs.
  uint64_t persistentResourceSize = 0;
};

// The buffers an execution reads and writes: DirectML's IDMLBindingTable.
// Inputs follow the descriptor's order (optional ones bound to nothing when
// absent); there is one output. Each bind call is checked whole (alignment,
// sizes, ranges within the buffers, no output overlapping an input, no
// temporary or persistent resource overlapping anything else bound) before
// the table changes, so a rejected call leaves it as it was. The table keeps
// the buffers it binds alive. It must not be rebound while a command buffer
// that recorded it is pending.
//
// Temporary and persistent resources (BindingProperties): bound by the
// caller, or, where it binds none, allocated by the table itself on first
// use (a table of its own then serves both initialization and executions).
// Their offsets must be multiples of DML_TEMPORARY_BUFFER_ALIGNMENT and
// DML_PERSISTENT_BUFFER_ALIGNMENT (256) and their ranges at least the
// operator's sizes; binding nothing (buffer = nullptr) goes back to the
// table's own. Executions through one temporary resource are serialized on
// one queue (record() orders them after the compute work recorded before
// it), and so are those through one table that keeps counters for its
// operator (a convolution whose chunks of K zero the output themselves);
// submit those through different queues concurrently only with different
// temporary resources and tables.
//
// Inputs flagged DML_TENSOR_FLAG_OWNED_BY_DML are bound for initialization
// and read from the persistent resource by executions: as in DirectML, bind
// them (and nothing else needs to be bound) before Device::initialize; an
// execution ignores them, so they may be bound to nothing (buffer = nullptr)
// then, and their buffers may be freed once the initializer has run. An
// operator with such inputs accepts nothing for any input when bound; what
// an execution needs is checked when it is recorded.
class VKDML_API BindingTable {
 public:
  BindingTable() = default;
  void bindInputs(const std::vector<BufferBinding>& inputs);
  void bindOutputs(const std::vector<BufferBinding>& outputs);
  void bindTemporary(const BufferBinding& temporary);
  void bindPersistent(const BufferBinding& persistent);
  // DirectML's IDMLBindingTable::Reset: points the table at `op` (the same
  // operator or another compiled on the table's device) and clears every
  // binding: tensors, temporary and persistent resources (the table's own
  // are dropped, so an operator with owned inputs is initialized again). The
  // table then behaves as a fresh op.createBindingTable(), but keeps its
  // address array where it has room for op's slots. A rejected call leaves
  // the table as it was. Like the bind calls, it must not be called while a
  // command buffer that recorded the table is pending; and it ends what was
  // recorded with the table: record again before submitting (a command
  // buffer recorded before the reset would read the table's new slots as
  // its own operator's: docs/binding-model.md, the caller's guarantees).
  void reset(const CompiledOperator& op);

  struct Impl;

 private:
  friend class CompiledOperator;
  friend class Device;
  explicit BindingTable(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

// An operator with its pipelines and parameter buffers built for one device.
class VKDML_API CompiledOperator {
 public:
  CompiledOperator() = default;
  const Operator& op() const;
  BindingTable createBindingTable() const;
  // Records the operator's dispatches (and the barriers between them) into a
  // command buffer in the recording state, created on this device. The caller
  // orders it against other work with its own barriers, as with DirectML's
  // UAV barriers. The table (which keeps its bound buffers alive) must
  // outlive the execution.
  void record(VkCommandBuffer commandBuffer, const BindingTable& bindings) const;
  // The temporary and persistent memory an execution needs (DirectML's
  // IDMLDispatchable::GetBindingProperties).
  BindingProperties bindingProperties() const;
  // Records the initializer (DirectML's IDMLOperatorInitializer): it fills
  // the table's persistent resource from the inputs flagged
  // DML_TENSOR_FLAG_OWNED_BY_DML, which must be bound; other tensors need
  // not be. It ends with a barrier that makes what it wrote visible to
  // compute shaders; the caller orders its start against earlier work, and
  // the executions after it (with the same persistent resource bound)
  // against it, like record(). Records nothing without such inputs.
  void recordInitializer(VkCommandBuffer commandBuffer, const BindingTable& bindings) const;
  // The kernel variants an execution dispatches, in order (names as in
  // shaders/CMakeLists.txt, e.g. "convolution_integer_coopmat_nv_n256_i32"),
  // and those of the initializer.
  std::vector<std::string> kernelNames() const;
  std::vector<std::string> initializerKernelNames() const;
  explicit operator bool() const { return impl_ != nullptr; }

  struct Impl;

 private:
  friend class Device;
  friend class BindingTable;
  explicit CompiledOperator(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

// What a device runs (DirectML's CheckFeatureSupport): every operator vkdml
// implements, with the data types each tensor accepts, and for
// DML_CONVOLUTION_INTEGER the ConvolutionPath values this device has.
struct TensorSupport {
  std::string name;  // the descriptor's field, e.g. "InputTensor"
  // Those createOperator accepts for it; a tensor whose type must match
  // another's (e.g. ScatterND's UpdatesTensor, InputTensor's) lists the same.
  std::vector<DML_TENSOR_DATA_TYPE> dataTypes;
};
struct OperatorSupport {
  DML_OPERATOR_TYPE type;
  std::string name;  // as Operator::name(), e.g. "DML_JOIN"
  std::vector<TensorSupport> inputs, outputs;
  std::vector<ConvolutionPath> convolutionPaths;  // DML_CONVOLUTION_INTEGER only; Auto not listed
};
struct FeatureSupport {
  // DML_FEATURE_LEVEL_5_1 (0x5100 in DirectML.h's numbering): the level that
  // introduced the newest operator implemented (DML_DIAGONAL_MATRIX1), whose
  // behaviour vkdml follows. vkdml implements only the operators listed.
  uint32_t featureLevel = 0x5100;
  std::vector<OperatorSupport> operators;  // in the order of the operator table
};

class VKDML_API Device : public std::enable_shared_from_this<Device> {
 public:
  static std::shared_ptr<Device> create(const DeviceOptions& options = {});
  // Uses the application's own objects; they must outlive the Device. The
  // VkDevice must have been created with bufferDeviceAddress, shaderInt64,
  // and 8- and 16-bit storage buffer access enabled. Of the options, only
  // the pipeline cache's apply. The application must not use `queue` while
  // a vkdml call that submits work runs (queues are externally synchronized).
  // ~Device waits for `queue` only: work the application recorded with vkdml
  // and submitted to other queues must be complete by then.
  static std::shared_ptr<Device> adopt(VkInstance instance, VkPhysicalDevice physicalDevice, VkDevice device,
                                       VkQueue queue, uint32_t queueFamilyIndex, const DeviceOptions& options = {});
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const noexcept;
  // The operators, data types and convolution paths this device supports.
  FeatureSupport featureSupport() const;
  // Names of the physical devices in enumeration order (for VKDML_DEVICE).
  static std::vector<std::string> listPhysicalDevices();

  Buffer createBuffer(uint64_t bytes);
  // Wraps an application buffer created with SHADER_DEVICE_ADDRESS and
  // TRANSFER_SRC/DST usage; the application keeps ownership.
  Buffer wrapBuffer(VkBuffer buffer, uint64_t bytes);

  Operator createOperator(const DML_OPERATOR_DESC& desc);
  // Fails with Unsupported when options force a path the device lacks.
  CompiledOperator compileOperator(const Operator& op, const CompileOptions& options = {});
  // compileOperator for each of `ops`, on up to `threads` threads (0: one
  // per hardware thread), results in the order of `ops`: the driver's
  // pipeline compiles, most of a network's compile time, run side by side,
  // each distinct pipeline once (also with pipelineCacheLimit 0).
  // compileOperator itself may also be called from several threads at once.
  // What the first failing operator (in order) threw is rethrown once all
  // have finished.
  std::vector<CompiledOperator> compileOperators(const std::vector<Operator>& ops, const CompileOptions& options = {},
                                                 uint32_t threads = 0);
  // Records, submits and waits.
  void execute(const CompiledOperator& op, const BindingTable& bindings);
  // Records the initializer (CompiledOperator::recordInitializer), submits
  // and waits.
  void initialize(const CompiledOperator& op, const BindingTable& bindings);
  // Records whatever `record` records into a one-time command buffer, submits
  // and waits. What `record` throws passes through unchanged (the command
  // buffer is released first); it must not call vkdml functions that submit
  // or lockQueue (InvalidArgument, where they would wait for themselves).
  void submitAndWait(const std::function<void(VkCommandBuffer)>& record);

  // The pipeline cache (DeviceOptions::pipelineCacheLimit): what it holds
  // and how often compileOperator found a pipeline there; dropping all but
  // the `keep` most recently used (0 also drops what
  // DeviceOptions::pipelineCacheData loaded); the VkPipelineCache data of
  // what it holds, for DeviceOptions::pipelineCacheData.
  struct PipelineCacheStats {
    size_t pipelines = 0;
    uint64_t hits = 0, misses = 0;  // misses compiled a pipeline
  };
  PipelineCacheStats pipelineCacheStats() const;
  void trimPipelineCache(size_t keep = 0);
  std::vector<uint8_t> pipelineCacheData() const;

  VkInstance instance() const noexcept;
  VkPhysicalDevice physicalDevice() const noexcept;
  VkDevice device() const noexcept;
  VkQueue queue() const noexcept;
  uint32_t queueFamilyIndex() const noexcept;
  // The lock vkdml holds while it uses queue() (execute, initialize, Buffer
  // copies, compileOperator, submitAndWait). Queues are
  // externally synchronized: hold it around your own vkQueueSubmit (or any
  // other use of queue()) when other threads may be calling vkdml. Calling a
  // vkdml function that submits while holding it deadlocks.
  std::unique_lock<std::mutex> lockQueue();
  // Number of validation messages seen so far (0 when validation is off).
  uint64_t validationMessageCount() const noexcept;

  struct Impl;

 private:
  friend struct detail::Access;
  Device();
  std::unique_ptr<Impl> impl_;
};

// Checks every rule for the descriptor; returns the first violation.
VKDML_API std::optional<Error> validate(const DML_OPERATOR_DESC& desc);

// What vkdml decides where the DirectML pages leave behaviour open:
//
// DML_SCATTER_ND
// - Indices of a signed type (INT32, INT64) may be negative: -1 is the last
//   element of its dimension. A coordinate still out of range after that wrap
//   is invalid input the host cannot see; vkdml clamps it into [0, size - 1]
//   coordinate by coordinate (reports say DirectML in ONNX Runtime does too). So
//   no index, however wrong, reads or writes outside the bound buffers.
//   Unsigned indices never wrap: UINT32 0xFFFFFFFF clamps to the last element.
// - Two tuples naming one target (invalid input, DirectML's page says): one of
//   the writers wins, which is unspecified; each element is stored whole, in
//   one access, so it is never part one writer's and part another's.
// - In place: OutputTensor may be bound to the same buffer range as
//   InputTensor when the two descriptors have the same layout (DataType,
//   Sizes, and the same strides, given or packed); the copy of the input is
//   then skipped. Any other overlap of the output with an input is rejected
//   when bound (InvalidArgument), as it is for every other operator.

}  // namespace vkdml

#endif  // VKDML_VKDML_HPP
