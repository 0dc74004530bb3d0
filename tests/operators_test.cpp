// The operator table (runtime/ops/operators.inc): each row is an operator that
// createOperator and validate reach by its type, under its name, with its
// tensor counts; the tests' small operators (oneOfEach) cover every row.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "small_operators.hpp"

namespace {

struct Row {
  DML_OPERATOR_TYPE type;
  std::string name;
  uint32_t inputs, outputs;                        // inputs 0: as many as the descriptor's InputCount
  std::optional<vkdml::Error> (*validateEmpty)();  // validate() of a zeroed descriptor
};

const Row kRows[] = {
#define VKDML_OPERATOR(type, name, Desc, inputs, outputs, create, dataTypes) \
  {type, name, inputs, outputs, [] {                                         \
     static const Desc empty{};                                              \
     return vkdml::validate({type, &empty});                                 \
   }},
#include "operators.inc"
#undef VKDML_OPERATOR
};

}  // namespace

TEST_CASE("operators: each row of the operator table refuses a zeroed descriptor under the row's name") {
  for (const Row& row : kRows) {
    CAPTURE(row.name);
    std::optional<vkdml::Error> error = row.validateEmpty();
    REQUIRE(error);
    CHECK(error->code() == vkdml::ErrorCode::InvalidArgument);
    CHECK(error->op() == row.name);
  }
}

TEST_CASE("operators: the small operators cover every row, each with the row's type, name and tensor counts") {
  std::set<std::string> covered;
  for (const auto& small : test::oneOfEach()) {
    vkdml::Operator op = test::device().createOperator(small->desc);
    CAPTURE(op.name());
    const Row* row = nullptr;
    for (const Row& r : kRows)
      if (r.type == op.type()) row = &r;
    REQUIRE(row);
    CHECK(op.name() == row->name);
    if (row->inputs) CHECK(op.inputCount() == row->inputs);
    CHECK(op.outputCount() == row->outputs);
    covered.insert(row->name);
  }
  CHECK(covered.size() == std::size(kRows));
}

TEST_CASE("operators: a type outside the table is Unsupported, and the error names each row's operator") {
  const DML_JOIN_OPERATOR_DESC any{};
  std::optional<vkdml::Error> error = vkdml::validate({DML_OPERATOR_GATHER_ND, &any});
  REQUIRE(error);
  CHECK(error->code() == vkdml::ErrorCode::Unsupported);
  CHECK(error->field() == "Type");
  for (const Row& row : kRows) CHECK(std::string(error->what()).find(row.name.substr(4)) != std::string::npos);
}
