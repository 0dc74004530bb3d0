// DirectML's binding model over time: a command buffer recorded once follows
// its binding table as rebound since (record() reads nothing it could keep
// stale), owned inputs are read from their initialized copies on every path,
// and the table's own persistent resource counts as initialized only once
// its initializer has run or is ordered before the execution.
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>

#include "convolution_integer.hpp"
#include "recorded.hpp"
#include "small_operators.hpp"

namespace {

std::vector<test::Tensor*> inputsOf(test::SmallOperator& op) {
  std::vector<test::Tensor*> inputs;
  if (op.slots.empty())
    for (auto& t : op.inputs) inputs.push_back(&t);
  for (int slot : op.slots) inputs.push_back(slot < 0 ? nullptr : &op.inputs[static_cast<size_t>(slot)]);
  return inputs;
}

std::vector<uint8_t> download(const vkdml::Buffer& b) {
  std::vector<uint8_t> out(b.size());
  b.download(out.data(), out.size());
  return out;
}

}  // namespace

TEST_CASE("rebinding: owned inputs of the data-movement operators, on both copy paths") {
  // test::run initializes with the owned inputs alone bound, overwrites them
  // with garbage, then executes with them unbound (and every third run
  // records once and submits again after rebinding): the output must come
  // from the initialized copies. On a CPU device the default copy path
  // takes transfer commands, which once read the bound input.
  for (bool kernel : {false, true}) {
    CAPTURE(kernel);
    std::optional<test::KernelCopies> kernelCopies;
    if (kernel) kernelCopies.emplace();
    for (auto make : {test::smallJoin, test::smallSlice, test::smallScatter})
      for (size_t owned = 0; owned < make()->inputs.size(); ++owned)
        for (int round = 0; round < 3; ++round) {  // every path of test::run
          auto op = make();
          CAPTURE(op->name);
          CAPTURE(owned);
          op->inputs[owned].buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
          test::run(op->desc, inputsOf(*op), {&op->output});
          CHECK(op->output.bytes == op->expected.bytes);
        }
  }
}

TEST_CASE("rebinding: every small operator, recorded once, rebound and submitted again for several rounds") {
  vkdml::Device& d = test::device();
  for (bool kernel : {false, true}) {
    CAPTURE(kernel);
    std::optional<test::KernelCopies> kernelCopies;
    if (kernel) kernelCopies.emplace();
    for (auto& op : test::oneOfEach()) {
      CAPTURE(op->name);
      const vkdml::CompiledOperator compiled = d.compileOperator(d.createOperator(op->desc), test::compileOptions());
      vkdml::BindingTable table = compiled.createBindingTable();
      test::CommandBuffer commands(d);
      for (uint32_t round = 0; round < 4; ++round) {
        CAPTURE(round);
        // Fresh buffers at another offset each round, guards around them;
        // the last round's are freed once the table lets go of them.
        const uint64_t offset = 256 * (round + 1);
        std::vector<vkdml::Buffer> inputs;
        for (size_t i = 0; i < op->inputs.size(); ++i) {
          const auto& bytes = op->inputs[i].bytes;
          inputs.push_back(d.createBuffer(offset + bytes.size() + 256));
          inputs.back().fill(0x3C3C3C3Cu, inputs.back().size() & ~uint64_t(3));
          inputs.back().upload(bytes.data(), bytes.size(), offset);
        }
        std::vector<vkdml::BufferBinding> inputBindings = op->inputBindings(inputs);
        for (auto& b : inputBindings)
          if (b.buffer) b = {b.buffer, offset, b.buffer->size() - offset - 256};
        vkdml::Buffer output = d.createBuffer(offset + op->output.bytes.size() + 256);
        output.fill(0xA5A5A5A5u, output.size() & ~uint64_t(3));
        table.bindInputs(inputBindings);
        table.bindOutputs({{&output, offset, op->output.bytes.size()}});
        if (round == 0) commands.record([&](VkCommandBuffer cmd) { compiled.record(cmd, table); });
        commands.submitAndWait();
        const std::vector<uint8_t> after = download(output);
        CHECK(std::vector<uint8_t>(after.begin() + static_cast<long>(offset),
                                   after.begin() + static_cast<long>(offset + op->output.bytes.size())) ==
              op->expected.bytes);
        for (size_t i = 0; i < after.size(); ++i)
          if (i < offset || i >= offset + op->output.bytes.size()) REQUIRE(after[i] == 0xA5);
      }
    }
  }
}

TEST_CASE("rebinding: a split-K convolution's zeros follow the rebound output") {
  // The cooperative-matrix kernel splits K across the grid into a zeroed
  // output: 1x512x8x8 into 64 channels (64 rows, 16 K steps).
  using namespace test::conv;
  vkdml::Device& d = test::device();
  std::mt19937_64 rng(31);
  test::Tensor input(U8, {1, 512, 8, 8}), filter(I8, {64, 512, 1, 1}), output(I32, {1, 64, 8, 8});
  output.alignment = 4;  // bound at a 4-byte offset below: the fill's word stores, not its 16-byte ones
  input.randomize(rng);
  filter.randomize(rng);
  Conv conv{{1, 1}, {1, 1}, {0, 0}, {0, 0}, 1};
  const DML_OPERATOR_DESC& desc = conv.make(input, nullptr, filter, nullptr, output);
  const test::Tensor answer = reference(conv, input, nullptr, filter, nullptr, output.sizes);
  // The cooperative-matrix paths the device has (the emulated one needs
  // subgroups of 4 lanes or more).
  using P = vkdml::ConvolutionPath;
  std::vector<P> paths;
  for (const vkdml::OperatorSupport& op : d.featureSupport().operators)
    if (op.type == DML_OPERATOR_CONVOLUTION_INTEGER)
      for (P path : op.convolutionPaths)
        if (path == P::CooperativeMatrixEmulated || path == P::CooperativeMatrix || path == P::CooperativeMatrixKHR)
          paths.push_back(path);
  if (paths.empty()) MESSAGE("skipped: " << d.info().name << " has no cooperative-matrix path");
  for (auto path : paths)
    for (auto packing : {vkdml::ConvolutionPacking::Auto, vkdml::ConvolutionPacking::None}) {
      CAPTURE(static_cast<int>(path));
      CAPTURE(static_cast<int>(packing));
      const vkdml::CompiledOperator compiled = d.compileOperator(d.createOperator(desc), {path, packing});
      const std::vector<std::string> kernels = compiled.kernelNames();
      // Unpacked (emulated, as lavapipe plans it): the K split's zero fill,
      // then the GEMM; on a GPU (or with $VKDML_SPLIT_ZEROS=chunks) the GEMM
      // alone, its chunks zeroing the output.
      const char* zeros = std::getenv("VKDML_SPLIT_ZEROS");
      const bool chunksZero = zeros ? std::string(zeros) == "chunks" : d.info().type != VK_PHYSICAL_DEVICE_TYPE_CPU;
      if (path == P::CooperativeMatrixEmulated && packing == vkdml::ConvolutionPacking::None)
        REQUIRE(kernels.size() == (chunksZero ? 1u : 2u));
      vkdml::Buffer in = d.createBuffer(input.bytes.size()), w = d.createBuffer(filter.bytes.size());
      in.upload(input.bytes.data(), input.bytes.size());
      w.upload(filter.bytes.data(), filter.bytes.size());
      // The answer, from an execution of its own into garbage (a fill that
      // never ran would leave it in the sum), checked against the reference.
      vkdml::Buffer expected = d.createBuffer(output.bytes.size());
      expected.fill(0x7F3C11E5u, expected.size());
      vkdml::BindingTable once = compiled.createBindingTable();
      once.bindInputs({{&in, 0, in.size()}, {}, {&w, 0, w.size()}, {}});
      once.bindOutputs({{&expected, 0, expected.size()}});
      d.execute(compiled, once);
      const std::vector<uint8_t> want = download(expected);
      test::Tensor first = output;
      first.bytes = want;
      test::expectSameElements(first, answer);
      // Recorded with one output (left full of garbage, 16-byte aligned),
      // then rebound to another at 4 bytes past a 16-byte boundary: the
      // GEMM adds into what the fill zeroed, so a fill still aimed at the
      // first output would leave the garbage in the sum.
      test::Bindings bindings;
      vkdml::Buffer out = d.createBuffer(output.bytes.size() + 16);
      out.fill(0x01010101u, out.size());
      bindings.inputs = {{&in, 0, in.size()}, {}, {&w, 0, w.size()}, {}};
      bindings.outputs = {{&out, 4, output.bytes.size()}};
      test::executeAfterRebinding(d, compiled, bindings);
      const std::vector<uint8_t> got = download(out);
      CHECK(std::vector<uint8_t>(got.begin() + 4, got.end() - 12) == want);
      CHECK(std::all_of(got.begin(), got.begin() + 4, [](uint8_t b) { return b == 1; }));  // guards
      CHECK(std::all_of(got.end() - 12, got.end(), [](uint8_t b) { return b == 1; }));
      // Executed again through the first table, its output garbage each
      // time: where the chunks zero the output themselves (K_SPLIT_ZEROES,
      // not on a CPU device), each execution leaves the table's counters
      // zero for the next.
      for (uint32_t round = 0; round < 3; ++round) {
        expected.fill(0x01010101u * (round + 2), expected.size());
        d.execute(compiled, once);
        CHECK(download(expected) == want);
      }
      // Recorded twice into one command buffer, nothing between them: record()
      // orders the second after the first (as for a temporary resource).
      expected.fill(0x05050505u, expected.size());
      d.submitAndWait([&](VkCommandBuffer cmd) {
        compiled.record(cmd, once);
        compiled.record(cmd, once);
      });
      CHECK(download(expected) == want);
    }
}

TEST_CASE("rebinding: ScatterND recorded in place and rebound out of place, and the reverse") {
  vkdml::Device& d = test::device();
  for (bool kernel : {false, true}) {
    CAPTURE(kernel);
    std::optional<test::KernelCopies> kernelCopies;
    if (kernel) kernelCopies.emplace();
    auto op = test::smallScatter();
    const vkdml::CompiledOperator compiled = d.compileOperator(d.createOperator(op->desc), test::compileOptions());
    std::vector<vkdml::Buffer> inputs = test::uploadInputs(d, *op);
    vkdml::Buffer separate = d.createBuffer(op->output.bytes.size());
    auto bindInPlace = [&](vkdml::BindingTable& table, bool inPlace) {
      inputs[0].upload(op->inputs[0].bytes.data(), op->inputs[0].bytes.size());
      separate.fill(0xA5A5A5A5u, separate.size());
      table.bindInputs(op->inputBindings(inputs));
      table.bindOutputs({{inPlace ? &inputs[0] : &separate, 0, separate.size()}});
    };
    for (bool recordedInPlace : {true, false}) {
      CAPTURE(recordedInPlace);
      vkdml::BindingTable table = compiled.createBindingTable();
      test::CommandBuffer commands(d);
      bindInPlace(table, recordedInPlace);
      commands.record([&](VkCommandBuffer cmd) { compiled.record(cmd, table); });
      commands.submitAndWait();
      CHECK(download(recordedInPlace ? inputs[0] : separate) == op->expected.bytes);
      bindInPlace(table, !recordedInPlace);
      commands.submitAndWait();
      CHECK(download(recordedInPlace ? separate : inputs[0]) == op->expected.bytes);
      if (recordedInPlace) CHECK(download(inputs[0]) == op->inputs[0].bytes);  // out of place: the input is kept
    }
  }
}

TEST_CASE("rebinding: the table's own persistent resource is initialized when its initializer runs") {
  vkdml::Device& d = test::device();
  auto op = test::smallConvolution(8);
  op->inputs[1].buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  const vkdml::CompiledOperator compiled = d.compileOperator(d.createOperator(op->desc), test::compileOptions());
  std::vector<vkdml::Buffer> inputs = test::uploadInputs(d, *op);
  vkdml::Buffer output = d.createBuffer(op->output.bytes.size());
  vkdml::BindingTable table = compiled.createBindingTable();
  table.bindInputs(op->inputBindings(inputs));
  table.bindOutputs({{&output, 0, output.size()}});
  auto check = [&] {
    CHECK(download(output) == op->expected.bytes);
    output.fill(0xA5A5A5A5u, output.size());
  };

  SUBCASE("recorded, never submitted: no execution is accepted, in another command buffer or by execute") {
    {
      test::CommandBuffer init(d);
      init.record([&](VkCommandBuffer cmd) { compiled.recordInitializer(cmd, table); });
      test::expectRejected([&] { d.execute(compiled, table); }, "has not run");
      test::CommandBuffer other(d);
      test::expectRejected([&] { other.record([&](VkCommandBuffer cmd) { compiled.record(cmd, table); }); },
                           "has not run");
    }  // discarded
    test::expectRejected([&] { d.execute(compiled, table); }, "not initialized");
    d.initialize(compiled, table);
    d.execute(compiled, table);
    check();
  }
  SUBCASE("recorded with the execution after it in one command buffer") {
    test::CommandBuffer commands(d);
    commands.record([&](VkCommandBuffer cmd) {
      compiled.recordInitializer(cmd, table);
      compiled.record(cmd, table);
    });
    commands.submitAndWait();
    check();
    d.execute(compiled, table);  // it has run now
    check();
  }
  SUBCASE("recorded, submitted and waited for: then executions anywhere") {
    test::CommandBuffer init(d);
    init.record([&](VkCommandBuffer cmd) { compiled.recordInitializer(cmd, table); });
    init.submitAndWait();
    d.execute(compiled, table);
    check();
    test::CommandBuffer other(d);
    other.record([&](VkCommandBuffer cmd) { compiled.record(cmd, table); });
    other.submitAndWait();
    check();
    // A reset drops the table's own resource: its initializer, submitted
    // again, initializes the new one, but until then nothing is accepted.
    table.reset(compiled);
    table.bindInputs(op->inputBindings(inputs));
    table.bindOutputs({{&output, 0, output.size()}});
    test::expectRejected([&] { d.execute(compiled, table); }, "not initialized");
    d.initialize(compiled, table);
    d.execute(compiled, table);
    check();
  }
}
