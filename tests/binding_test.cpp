// DirectML's binding model beyond the tensors: binding properties, the
// temporary and persistent resources a caller binds, and the initializer of
// inputs flagged DML_TENSOR_FLAG_OWNED_BY_DML. (test::run binds garbage-filled
// temporary and persistent resources in every operator's tests.)
#include <string>

#include "allocation_failures.hpp"
#include "small_operators.hpp"
#include "support.hpp"

namespace {

std::vector<uint8_t> download(const vkdml::Buffer& b, uint64_t offset, uint64_t bytes) {
  std::vector<uint8_t> out(bytes);
  b.download(out.data(), bytes, offset);
  return out;
}

}  // namespace

TEST_CASE("binding: binding properties: scratch of ScatterND, none for Join") {
  test::KernelCopies kernelCopies;  // the mask in scratch
  vkdml::Device& d = test::device();
  auto join = test::smallJoin();
  const auto none = d.compileOperator(d.createOperator(join->desc), test::compileOptions()).bindingProperties();
  CHECK(none.temporaryResourceSize == 0);
  CHECK(none.persistentResourceSize == 0);
  auto scatter = test::smallScatter();
  const auto props = d.compileOperator(d.createOperator(scatter->desc), test::compileOptions()).bindingProperties();
  CHECK(props.temporaryResourceSize > 0);
  CHECK(props.temporaryResourceSize % 4 == 0);
  CHECK(props.persistentResourceSize == 0);
}

TEST_CASE("binding: a caller's temporary resource: garbage, rebinding, checks, lifetime") {
  test::KernelCopies kernelCopies;  // the mask in scratch
  vkdml::Device& d = test::device();
  auto op = test::smallScatter();
  vkdml::CompiledOperator compiled = d.compileOperator(d.createOperator(op->desc), test::compileOptions());
  const uint64_t size = compiled.bindingProperties().temporaryResourceSize;
  REQUIRE(size > 0);
  std::vector<vkdml::Buffer> inputs = test::uploadInputs(d, *op);
  vkdml::Buffer output = d.createBuffer(op->output.bytes.size());
  vkdml::BindingTable table = compiled.createBindingTable();
  table.bindInputs(op->inputBindings(inputs));
  table.bindOutputs({{&output, 0, output.size()}});
  const uint64_t sizeRounded = (size + 255) & ~uint64_t(255);
  vkdml::Buffer scratch = d.createBuffer(3 * 256 + sizeRounded);
  auto run = [&] {
    output.fill(0xA5A5A5A5u, output.size() & ~uint64_t(3));
    d.execute(compiled, table);
    CHECK(download(output, 0, output.size()) == op->expected.bytes);
  };

  SUBCASE("garbage before every execution, guards around it intact") {
    table.bindTemporary({&scratch, 256, size});
    for (uint32_t word : {0xFFFFFFFFu, 0xC3C3C3C3u}) {
      scratch.fill(word, scratch.size());
      run();
      // The trailing guard from the binding's end, not the rounded size's.
      const auto before = download(scratch, 0, 256), after = download(scratch, 256 + size, scratch.size() - 256 - size);
      CHECK(std::all_of(before.begin(), before.end(), [&](uint8_t b) { return b == uint8_t(word); }));
      CHECK(std::all_of(after.begin(), after.end(), [&](uint8_t b) { return b == uint8_t(word); }));
    }
    table.bindTemporary({});  // back to the table's own
    run();
  }
  SUBCASE("every rule, each rejected call leaving the table as it was") {
    table.bindTemporary({&scratch, 256, size});
    test::expectRejected([&] { table.bindTemporary({&scratch, 16, size}); }, "temporary resource.Offset");
    test::expectRejected([&] { table.bindTemporary({&scratch, 256, size - 4}); }, "temporary resource.SizeInBytes");
    test::expectRejected([&] { table.bindTemporary({&scratch, 512 + sizeRounded, size + 256}); }, "exceeds the buffer");
    test::expectRejected([&] { table.bindTemporary({&scratch, ~uint64_t(255), size}); }, "exceeds the buffer");
    test::expectRejected([&] { table.bindTemporary({&inputs[0], 0, inputs[0].size()}); }, "overlap");
    test::expectRejected([&] { table.bindTemporary({&output, 0, size}); }, "overlap");
    // A tensor bound over the temporary resource is rejected too.
    test::expectRejected([&] { table.bindOutputs({{&scratch, 256, output.size()}}); }, "overlap");
    scratch.fill(0xFFFFFFFFu, scratch.size());
    run();
  }
  SUBCASE("the table keeps it alive") {
    {
      vkdml::Buffer own = d.createBuffer(size);
      table.bindTemporary({&own, 0, size});
    }
    std::vector<vkdml::Buffer> later;
    for (int i = 0; i < 8; ++i) {
      later.push_back(d.createBuffer(size));
      later.back().fill(0xFFFFFFFFu, size & ~uint64_t(3));
    }
    run();
    for (auto& b : later) {
      const auto bytes = download(b, 0, size & ~uint64_t(3));
      CHECK(std::all_of(bytes.begin(), bytes.end(), [](uint8_t x) { return x == 0xFF; }));
    }
  }
}

TEST_CASE("binding: an owned filter: the initializer, its table and its errors") {
  vkdml::Device& d = test::device();
  auto op = test::smallConvolution(8);
  op->inputs[1].buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  vkdml::CompiledOperator compiled = d.compileOperator(d.createOperator(op->desc), test::compileOptions());
  const vkdml::BindingProperties props = compiled.bindingProperties();
  CHECK(props.persistentResourceSize >= op->inputs[1].bytes.size());
  std::vector<vkdml::Buffer> inputs = test::uploadInputs(d, *op);
  vkdml::Buffer output = d.createBuffer(op->output.bytes.size());
  auto check = [&] { CHECK(download(output, 0, output.size()) == op->expected.bytes); };

  SUBCASE("one table: its own persistent resource, initialized before the first execution") {
    vkdml::BindingTable table = compiled.createBindingTable();
    table.bindInputs(op->inputBindings(inputs));
    table.bindOutputs({{&output, 0, output.size()}});
    test::expectRejected([&] { d.execute(compiled, table); }, "not initialized");
    d.initialize(compiled, table);
    inputs[1].fill(0x7F7F7F7Fu, inputs[1].size() & ~uint64_t(3));  // executions read the copy
    d.execute(compiled, table);
    check();
  }
  SUBCASE("DirectML's way: an initializer table, then execution tables binding no filter") {
    vkdml::Buffer persistent = d.createBuffer(props.persistentResourceSize + 256);
    vkdml::BindingTable init = compiled.createBindingTable();
    test::expectRejected([&] { d.initialize(compiled, init); }, "FilterTensor");
    init.bindInputs({{}, {}, {&inputs[1], 0, inputs[1].size()}, {}});
    test::expectRejected(
        [&] {
          init.bindPersistent({&persistent, 128, props.persistentResourceSize});
        },
        "persistent resource.Offset");
    test::expectRejected(
        [&] {
          init.bindPersistent({&persistent, 256, props.persistentResourceSize - 4});
        },
        "persistent resource.SizeInBytes");
    test::expectRejected([&] { init.bindPersistent({&inputs[1], 0, props.persistentResourceSize}); }, "overlap");
    init.bindPersistent({&persistent, 256, props.persistentResourceSize});
    d.initialize(compiled, init);
    inputs[1] = vkdml::Buffer();  // the filter is not needed any more
    vkdml::BindingTable table = compiled.createBindingTable();
    test::expectRejected([&] { table.bindTemporary({&persistent, 256, 256}); }, "temporary resource");
    table.bindInputs({{&inputs[0], 0, op->inputs[0].bytes.size()}, {}, {}, {}});
    table.bindOutputs({{&output, 0, output.size()}});
    table.bindPersistent({&persistent, 256, props.persistentResourceSize});
    d.execute(compiled, table);
    check();
    // An input still required by executions is checked when recorded.
    vkdml::BindingTable missing = compiled.createBindingTable();
    missing.bindInputs({{}, {}, {}, {}});
    missing.bindOutputs({{&output, 0, output.size()}});
    missing.bindPersistent({&persistent, 256, props.persistentResourceSize});
    test::expectRejected([&] { d.execute(compiled, missing); }, "InputTensor");
  }
}

namespace {
// Binds `op`'s inputs and output into `table` (buffers kept in `keep`), runs
// it and checks the output.
void bindAndRun(vkdml::Device& d, const vkdml::CompiledOperator& compiled, vkdml::BindingTable& table,
                test::SmallOperator& op, std::vector<vkdml::Buffer>& keep) {
  std::vector<vkdml::Buffer> inputs = test::uploadInputs(d, op);
  vkdml::Buffer output = d.createBuffer(op.output.bytes.size());
  table.bindInputs(op.inputBindings(inputs));
  table.bindOutputs({{&output, 0, output.size()}});
  d.execute(compiled, table);
  CHECK(download(output, 0, output.size()) == op.expected.bytes);
  keep.insert(keep.end(), inputs.begin(), inputs.end());
  keep.push_back(output);
}
}  // namespace

TEST_CASE("binding: reset: the same operator, others of other slot counts, a fresh table's checks") {
  test::KernelCopies kernelCopies;  // ScatterND's mask in scratch
  vkdml::Device& d = test::device();
  auto join = test::smallJoin();
  auto slice = test::smallSlice();
  auto scatter = test::smallScatter();
  vkdml::CompiledOperator joinOp = d.compileOperator(d.createOperator(join->desc), test::compileOptions());
  vkdml::CompiledOperator sliceOp = d.compileOperator(d.createOperator(slice->desc), test::compileOptions());
  vkdml::CompiledOperator scatterOp = d.compileOperator(d.createOperator(scatter->desc), test::compileOptions());
  std::vector<vkdml::Buffer> keep;
  vkdml::BindingTable table = joinOp.createBindingTable();
  bindAndRun(d, joinOp, table, *join, keep);
  table.reset(joinOp);  // as fresh: nothing bound
  test::expectRejected([&] { d.execute(joinOp, table); }, "bindInputs");
  bindAndRun(d, joinOp, table, *join, keep);
  table.reset(sliceOp);  // fewer slots
  test::expectRejected([&] { d.execute(joinOp, table); }, "another compiled operator");
  test::expectRejected([&] { d.execute(sliceOp, table); }, "bindInputs");
  bindAndRun(d, sliceOp, table, *slice, keep);
  table.reset(scatterOp);  // more slots than the table was created with, and scratch
  bindAndRun(d, scatterOp, table, *scatter, keep);
  table.reset(joinOp);
  bindAndRun(d, joinOp, table, *join, keep);
}

TEST_CASE("binding: reset: errors leave the table as it was") {
  vkdml::Device& d = test::device();
  auto join = test::smallJoin();
  vkdml::CompiledOperator joinOp = d.compileOperator(d.createOperator(join->desc), test::compileOptions());
  vkdml::BindingTable empty;
  test::expectRejected([&] { empty.reset(joinOp); }, "empty");
  std::vector<vkdml::Buffer> keep;
  vkdml::BindingTable table = joinOp.createBindingTable();
  test::expectRejected([&] { table.reset(vkdml::CompiledOperator()); }, "empty");
  auto second = vkdml::Device::create();
  vkdml::CompiledOperator elsewhere = second->compileOperator(second->createOperator(join->desc));
  test::expectRejected([&] { table.reset(elsewhere); }, "another device");
  bindAndRun(d, joinOp, table, *join, keep);
}

TEST_CASE("binding: execute and initialize refuse an empty operator and one of another device, by name") {
  vkdml::Device& d = test::device();
  auto join = test::smallJoin();
  vkdml::CompiledOperator joinOp = d.compileOperator(d.createOperator(join->desc), test::compileOptions());
  vkdml::BindingTable table = joinOp.createBindingTable();
  test::expectRejected([&] { d.execute(vkdml::CompiledOperator(), table); }, "the compiled operator is empty");
  test::expectRejected([&] { d.initialize(vkdml::CompiledOperator(), table); }, "the compiled operator is empty");
  auto second = vkdml::Device::create();
  vkdml::CompiledOperator elsewhere = second->compileOperator(second->createOperator(join->desc));
  test::expectRejected([&] { d.execute(elsewhere, table); }, "compiled for another device");
  test::expectRejected([&] { d.initialize(elsewhere, table); }, "compiled for another device");
}

TEST_CASE("binding: reset: the table's own persistent resource is initialized again") {
  vkdml::Device& d = test::device();
  auto op = test::smallConvolution(8);
  op->inputs[1].buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  vkdml::CompiledOperator compiled = d.compileOperator(d.createOperator(op->desc), test::compileOptions());
  auto other = test::smallConvolution(8, 2);
  other->inputs[1].buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  vkdml::CompiledOperator otherCompiled = d.compileOperator(d.createOperator(other->desc), test::compileOptions());
  std::vector<vkdml::Buffer> inputs = test::uploadInputs(d, *op);
  vkdml::Buffer output = d.createBuffer(op->output.bytes.size());
  vkdml::BindingTable table = compiled.createBindingTable();
  auto bind = [&] {
    table.bindInputs(op->inputBindings(inputs));
    table.bindOutputs({{&output, 0, output.size()}});
  };
  bind();
  d.initialize(compiled, table);
  d.execute(compiled, table);
  CHECK(download(output, 0, output.size()) == op->expected.bytes);
  for (const vkdml::CompiledOperator* target : {&compiled, &otherCompiled}) {
    table.reset(*target);
    if (target == &otherCompiled) {
      // Another filter: executing without initializing would read the old one.
      std::vector<vkdml::Buffer> otherInputs = test::uploadInputs(d, *other);
      vkdml::Buffer otherOutput = d.createBuffer(other->output.bytes.size());
      table.bindInputs(other->inputBindings(otherInputs));
      table.bindOutputs({{&otherOutput, 0, otherOutput.size()}});
      test::expectRejected([&] { d.execute(otherCompiled, table); }, "not initialized");
      d.initialize(otherCompiled, table);
      d.execute(otherCompiled, table);
      CHECK(download(otherOutput, 0, otherOutput.size()) == other->expected.bytes);
    } else {
      bind();
      test::expectRejected([&] { d.execute(compiled, table); }, "not initialized");
      d.initialize(compiled, table);
      d.execute(compiled, table);
      CHECK(download(output, 0, output.size()) == op->expected.bytes);
    }
  }
}

TEST_CASE("binding: a reset or bind call that fails a host allocation leaves the table as it was") {
  // Each allocation the call makes fails in turn (as in "a failed host
  // allocation in any entry point is OutOfMemory"); after each failure the
  // table must still run its operator with what was bound.
  vkdml::Device& d = test::device();
  auto underFailures = [](const std::function<void()>& call, const std::function<void()>& stillWorks) {
    for (long n = 0;; ++n) {
      INFO("allocation " << n);
      test::failAllocation(n);
      try {
        call();
      } catch (const vkdml::Error& e) {
        CHECK(e.code() == vkdml::ErrorCode::OutOfMemory);
      }
      if (!test::allocationFailed()) return;
      stillWorks();
    }
  };
  auto op = test::smallConvolution(8);
  op->inputs[1].buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  vkdml::CompiledOperator conv = d.compileOperator(d.createOperator(op->desc), test::compileOptions());
  std::vector<vkdml::Buffer> inputs = test::uploadInputs(d, *op);
  vkdml::Buffer output = d.createBuffer(op->output.bytes.size());

  SUBCASE("reset to an operator of more slots") {
    auto join = test::smallJoin();
    vkdml::CompiledOperator joinCompiled = d.compileOperator(d.createOperator(join->desc), test::compileOptions());
    std::vector<vkdml::Buffer> joinInputs = test::uploadInputs(d, *join);
    vkdml::Buffer joinOutput = d.createBuffer(join->output.bytes.size());
    REQUIRE(join->inputBindings(joinInputs).size() + 1 < op->inputBindings(inputs).size() + 1);
    vkdml::BindingTable table = joinCompiled.createBindingTable();
    table.bindInputs(join->inputBindings(joinInputs));
    table.bindOutputs({{&joinOutput, 0, joinOutput.size()}});
    underFailures([&] { table.reset(conv); },
                  [&] {
                    joinOutput.fill(0, joinOutput.size() & ~uint64_t(3));
                    d.execute(joinCompiled, table);
                    CHECK(download(joinOutput, 0, joinOutput.size()) == join->expected.bytes);
                  });
  }
  SUBCASE("back to the table's own persistent resource") {
    const uint64_t persistentSize = conv.bindingProperties().persistentResourceSize;
    vkdml::Buffer persistent = d.createBuffer(persistentSize);
    vkdml::BindingTable table = conv.createBindingTable();
    table.bindInputs(op->inputBindings(inputs));
    table.bindOutputs({{&output, 0, output.size()}});
    table.bindPersistent({&persistent, 0, persistentSize});
    d.initialize(conv, table);
    // Each failure must leave the caller's resource bound, initialized.
    underFailures([&] { table.bindPersistent({}); },
                  [&] {
                    output.fill(0, output.size() & ~uint64_t(3));
                    d.execute(conv, table);
                    CHECK(download(output, 0, output.size()) == op->expected.bytes);
                  });
    test::expectRejected([&] { d.execute(conv, table); }, "not initialized");
  }
}
