// The objects behind the public handles.
#pragma once

#include <atomic>
#include <condition_variable>
#include <list>
#include <map>
#include <mutex>
#include <optional>

#include "core/memory_types.hpp"
#include "vulkan.hpp"

namespace vkdml {

namespace detail {
// A compute pipeline, shared by the device's pipeline cache and the compiled
// operators that dispatch it: dropped from the cache, it lives on until the
// last of them is gone.
struct Pipeline {
  Pipeline(const VolkDeviceTable& table, VkDevice owner) : vk(table), device(owner) {}
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;
  ~Pipeline();
  const VolkDeviceTable& vk;
  VkDevice device;
  VkPipeline handle = VK_NULL_HANDLE;
  // Its driver binary, where it was not compiled into the device's shared
  // VkPipelineCache (which takes in at most pipelineCacheLimit pipelines).
  VkPipelineCache binary = VK_NULL_HANDLE;
};
}  // namespace detail

struct Device::Impl {
  bool ownsDevice = false;  // false when adopted
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physicalDevice = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
  VolkDeviceTable vk{};
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  // Loaded for this instance: volk's global instance pointers follow the
  // newest instance, whose extensions may differ, and another thread may be
  // loading them.
  PFN_vkDestroyInstance destroyInstance = nullptr;
  PFN_vkDestroyDebugUtilsMessengerEXT destroyMessenger = nullptr;
  std::function<void(const char*)> onValidationMessage;
  std::atomic<uint64_t> validationMessages{0};
  // Messages about what the validation layer predates (LayerPredates):
  // counted, not reported.
  std::atomic<uint64_t> predatedMessages{0};
  DeviceInfo info;
  detail::PlanDefaults planDefaults;  // read from the environment at creation
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceMemoryProperties memory{};

  VkPipelineLayout pipelineLayout = VK_NULL_HANDLE;  // push constants only: no descriptors

  // The pipeline cache: pipelines by kernel and specialization constants,
  // the least recently used dropped beyond pipelineCacheLimit.
  using PipelineKey = std::pair<detail::Kernel, shader::Specialization>;
  struct CachedPipeline {
    std::shared_ptr<const detail::Pipeline> pipeline;
    std::list<const PipelineKey*>::iterator use;  // its place in recentUse
  };
  mutable std::mutex pipelinesMutex;  // guards everything down to `modules`
  std::map<PipelineKey, CachedPipeline> pipelines;
  std::list<const PipelineKey*> recentUse;  // most recent first
  size_t pipelineCacheLimit = 0;
  uint64_t pipelineHits = 0, pipelineMisses = 0;
  // The driver's cache: DeviceOptions::pipelineCacheData, then the first
  // pipelines compiled, up to pipelineCacheLimit of them (so that it stays
  // bounded); later ones keep their binary in their own VkPipelineCache.
  VkPipelineCache pipelineCache = VK_NULL_HANDLE;
  size_t pipelineCacheRoom = 0;  // pipelines pipelineCache may still take in
  std::map<detail::Kernel, VkShaderModule> modules;
  // Pipelines being created (off the lock): a thread that needs one of them
  // waits on `compiled` and takes it from here rather than create it again,
  // even where the cache does not keep it (pipelineCacheLimit 0, or trimmed).
  struct Creating {
    std::shared_ptr<const detail::Pipeline> pipeline;  // set once created
  };
  std::map<PipelineKey, std::shared_ptr<Creating>> compiling;
  std::condition_variable compiled;

  std::mutex submitMutex;  // guards the pool, the fence, the queue and `lost` (Device::lockQueue)
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  bool lost = false;  // a wait failed and the device could not be drained

  // Allocation helpers.
  // With pipelinesMutex held: the module of an embedded kernel (or of its
  // replacement, see kernelOverride), created on first use.
  VkShaderModule shaderModule(detail::Kernel kernel);
  std::shared_ptr<const detail::Pipeline> pipeline(detail::Kernel kernel, const shader::Specialization& specialization);
  void trimPipelines(size_t keep);  // with pipelinesMutex held
  // DeviceOptions::pipelineStatistics or $VKDML_PIPELINE_STATISTICS=1 asks
  // for them; pipelineStatistics: the device has them, print each pipeline's.
  bool wantPipelineStatistics = false;
  bool pipelineStatistics = false;
  void printStatistics(detail::Kernel kernel, VkPipeline pipeline);
  void submitAndWait(const std::function<void(VkCommandBuffer)>& record);
  // InvalidArgument on a thread inside this device's submitAndWait recorder:
  // a submission from there would wait for itself.
  void refuseSubmitWhileRecording() const;
  void destroy();
};

struct Buffer::Impl {
  std::shared_ptr<Device> device;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;  // host-visible buffers only
  uint64_t size = 0;
  VkDeviceAddress address = 0;
  bool owned = true;
  ~Impl();
};

namespace detail {
// While one lives on a thread, the validation layer's messages there about
// what Debian's layer (1.3.239) predates are counted apart
// (Impl::predatedMessages) instead of reported: around the creation of a
// kernel's module and pipelines whose SPIR-V uses SPV_KHR_cooperative_matrix
// (every message: the layer's shader checks cannot read it), and around
// vkCreateDevice where VK_KHR_cooperative_matrix is enabled (only the
// messages naming it or its feature struct's sType, which the layer calls
// unknown). Nothing else is exempt.
class LayerPredates {
 public:
  // `mentions`: a message is covered where its text holds one of them
  // (null-terminated list); null: every message.
  explicit LayerPredates(bool active, const char* const* mentions = nullptr);
  ~LayerPredates();
  LayerPredates(const LayerPredates&) = delete;
  LayerPredates& operator=(const LayerPredates&) = delete;
  // Whether a live one on this thread covers this message.
  static bool covers(const char* message);

 private:
  bool active_;
  const char* const* previous_;
  bool previousActive_;
};
// Whether the layer cannot check `kernel`'s SPIR-V (a translated KHR kernel).
bool uncheckedKernel(Kernel kernel);
// A kernel whose warps are subgroups of shader::COOPMAT_SUBGROUP lanes (the
// cooperative-matrix kernels on the device's matrices): created with that
// size required where the device's default differs and it may be asked.
bool warpKernel(Kernel kernel);

// An empty VkPipelineCache, or one holding `initialData` (vk/pipeline.cpp).
VkPipelineCache createPipelineCache(const Device::Impl& d, const std::vector<uint8_t>& initialData);
}  // namespace detail

#ifdef VKDML_KERNEL_OVERRIDE
namespace detail {
// Kernel development (CMake option VKDML_KERNEL_OVERRIDE): the SPIR-V of
// $VKDML_KERNEL_DIR/<kernel>.spv, validated, or nothing where the variable
// or the file is absent. A file that is not valid SPIR-V is an error.
std::vector<uint32_t> kernelOverride(const std::string& kernel);
}  // namespace detail
#endif

// Creates a buffer usable as a shader device address. Every buffer vkdml
// allocates, its own included (staging, parameters, binding tables,
// scratch), comes from here: requests beyond the device's limits are
// OutOfMemory before any Vulkan call.
// `use` picks its memory type (core/memory_types.hpp).
std::shared_ptr<Buffer::Impl> allocateBuffer(const std::shared_ptr<Device>& device, uint64_t bytes,
                                             detail::BufferUse use);

struct CompiledOperator::Impl {
  std::shared_ptr<Device> device;
  Operator op;
  // Dispatches ready to record: the plan's, their pipelines (null for
  // transfer commands) and parameter blocks.
  struct Program {
    std::vector<detail::Dispatch> dispatches;
    std::vector<VkPipeline> pipelines;  // the handles of pipelineOwners, for recording
    std::vector<std::shared_ptr<const detail::Pipeline>> pipelineOwners;
    std::vector<VkDeviceAddress> paramsAddress;
    std::shared_ptr<Buffer::Impl> params;
  };
  // What Device::execute records and submits at once: transfer commands
  // where the plan takes them, which name the VkBuffers bound now (nothing
  // can rebind them before that submit).
  Program executed;
  // What record() puts into a caller's command buffer, and the initializer:
  // kernels alone, which read the binding table when they run, so that a
  // recorded command buffer follows the table as rebound since (DirectML's
  // binding model). Absent where `executed` holds no transfer command.
  std::optional<Program> kernelsOnly;
  const Program& recordable() const { return kernelsOnly ? *kernelsOnly : executed; }
  // BindingTable::temporaryResourceSize: the largest Dispatch::scratchBytes
  // of either program in whole words (a program whose scratch must start
  // zeroed begins with a fill of it).
  uint64_t scratchBytes = 0;
  // The largest Dispatch::tableCounterBytes of either program.
  uint64_t tableCounterBytes = 0;
  // The persistent resource: what the initializer dispatches write at its
  // start, then a copy of each owned input they do not pack, each at a
  // multiple of 256 bytes. persistentBytes: BindingProperties::persistentResourceSize.
  struct OwnedInput {
    uint32_t slot = 0;
    uint64_t offset = 0;  // in the persistent resource
    bool copied = false;  // false: packed by an initializer dispatch, executions do not read the slot
  };
  std::vector<OwnedInput> owned;
  uint64_t persistentBytes = 0;
  bool hasInitializer() const { return !owned.empty(); }
};

// What one slot of a binding table holds: the buffer (kept alive as long as
// the table holds it) and the range the slot's tensor may touch, as device
// addresses, so that ranges of different buffers that alias one memory
// compare too. An absent optional tensor binds nothing (address 0).
struct BoundRange {
  std::shared_ptr<Buffer::Impl> buffer;
  uint64_t offset = 0;          // in the buffer
  VkDeviceAddress address = 0;  // buffer's address + offset
  uint64_t bytes = 0;           // TotalTensorSizeInBytes
};

struct BindingTable::Impl {
  std::shared_ptr<const CompiledOperator::Impl> op;
  // BufferUse::Table: one device address per slot (inputs, outputs,
  // temporary, persistent) as executions read them, then as the initializer
  // does (they differ in the owned inputs': their copies in the persistent
  // resource, or the bound buffers). `addresses` is the host's copy, which
  // the host reads: the mapping is written only.
  std::shared_ptr<Buffer::Impl> table;
  std::vector<uint64_t> addresses;
  std::vector<std::optional<BoundRange>> slots;  // inputs, then outputs; empty until bound
  // Bound by bindTemporary / bindPersistent; else the table's own, allocated
  // on first use (its persistent one initialized or not).
  std::optional<BoundRange> temporary, persistent;
  std::shared_ptr<Buffer::Impl> ownTemporary, ownPersistent;
  // The initialization of the table's own persistent resource, as the GPU
  // has carried it out: each allocation of it starts a new epoch, and the
  // initializer's last command writes its epoch into `marker` (host-visible,
  // kept for the table's life: a recorded initializer may run again later).
  // An execution recorded into the command buffer that holds the
  // initializer for this epoch runs after it.
  uint32_t epoch = 0;
  std::shared_ptr<Buffer::Impl> marker;
  VkCommandBuffer initializerCommands = VK_NULL_HANDLE;
  uint32_t initializerEpoch = 0;
  size_t slotCount() const { return slots.size() + 2; }  // one address array
};

namespace detail {
// Checks a binding of a buffer range: the buffer is of `device`, the offset
// a multiple of `alignment`, the range at least `required` bytes (named
// `requiredName` in the error) and within the buffer. `field` names it.
BoundRange resolveRange(const char* op, const std::string& field, const Device& device, const BufferBinding& b,
                        uint64_t alignment, uint64_t required, const char* requiredName);
// Checks every range bound in the candidate state of a table (its tensor
// slots, temporary and persistent resources) against the others: no output
// may overlap an input (but the operator's in-place pair), and the temporary
// and persistent resources may overlap nothing. Throws InvalidArgument.
void checkOverlaps(const OperatorPlan& plan, const std::vector<std::optional<BoundRange>>& slots,
                   const std::optional<BoundRange>& temporary, const std::optional<BoundRange>& persistent);
// Points `t` at `op` with nothing bound (createBindingTable, reset): its
// address arrays kept where they have room for op's slots, zeroed.
void pointTable(BindingTable::Impl& t, const std::shared_ptr<const CompiledOperator::Impl>& op);
// Writes the table's two address arrays from its state.
void publishAddresses(BindingTable::Impl& t);
// The table's temporary / persistent resource, the table's own allocated
// (with address) where none is bound and the operator needs one; nullopt
// where it needs none.
std::optional<BoundRange> temporaryRange(BindingTable::Impl& t);
std::optional<BoundRange> persistentRange(BindingTable::Impl& t);
// Whether the table's own persistent resource holds what its initializer
// writes for an execution recorded into `cmd` (VK_NULL_HANDLE: submitted
// now, by Device::execute): the initializer has run on the GPU, or it was
// recorded into `cmd` earlier.
bool ownPersistentInitialized(const BindingTable::Impl& t, VkCommandBuffer cmd);
// Records a barrier between the given stages and accesses.
void barrier(const Device::Impl& d, VkCommandBuffer cmd, VkPipelineStageFlags srcStages, VkAccessFlags srcAccess,
             VkPipelineStageFlags dstStages, VkAccessFlags dstAccess);
}  // namespace detail

}  // namespace vkdml
