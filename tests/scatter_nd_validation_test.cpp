// DML_SCATTER_ND: every validation rule.
#include "scatter_nd.hpp"
#include "support.hpp"

using test::ScatterNd;
using test::Tensor;

TEST_CASE("scatter_nd: validation rules") {
  // input {1,4,5} (InputDimensionCount 2), indices {1,3,1} (IndicesDimensionCount 2), updates {1,3,5}.
  Tensor input(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 4, 5});
  Tensor indices(DML_TENSOR_DATA_TYPE_INT32, {1, 3, 1});
  Tensor updates(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 3, 5});
  Tensor output(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 4, 5});
  ScatterNd s;
  REQUIRE_FALSE(vkdml::validate(s.make(input, indices, updates, output, 2, 2)).has_value());
  REQUIRE_FALSE(vkdml::validate(s.make(input, indices, updates, output, 2, 3)).has_value());

  SUBCASE("every tensor is required") {
    s.make(input, indices, updates, output, 2, 2);
    s.desc.InputTensor = nullptr;
    test::expectInvalid(s.op, "InputTensor", {"null"});
    s.make(input, indices, updates, output, 2, 2);
    s.desc.IndicesTensor = nullptr;
    test::expectInvalid(s.op, "IndicesTensor", {"null"});
    s.make(input, indices, updates, output, 2, 2);
    s.desc.UpdatesTensor = nullptr;
    test::expectInvalid(s.op, "UpdatesTensor", {"null"});
    s.make(input, indices, updates, output, 2, 2);
    s.desc.OutputTensor = nullptr;
    test::expectInvalid(s.op, "OutputTensor", {"null"});
  }
  SUBCASE("the indices share the input's DimensionCount") {
    Tensor idx(DML_TENSOR_DATA_TYPE_INT32, {3, 1});
    test::expectInvalid(s.make(input, idx, updates, output, 2, 2), "IndicesTensor.DimensionCount", {"3", "2"});
  }
  SUBCASE("the updates share the input's DimensionCount") {
    Tensor upd(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 5});
    test::expectInvalid(s.make(input, indices, upd, output, 2, 2), "UpdatesTensor.DimensionCount", {"3", "2"});
  }
  SUBCASE("the output shares the input's DimensionCount") {
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 4, 5});
    test::expectInvalid(s.make(input, indices, updates, out, 2, 2), "OutputTensor.DimensionCount", {"3", "4"});
  }
  SUBCASE("the updates have the input's data type") {
    Tensor upd(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 3, 5});
    test::expectInvalid(s.make(input, indices, upd, output, 2, 2), "UpdatesTensor.DataType", {"FLOAT16", "FLOAT32"});
  }
  SUBCASE("the output has the input's data type") {
    Tensor out(DML_TENSOR_DATA_TYPE_UINT32, {1, 4, 5});
    test::expectInvalid(s.make(input, indices, updates, out, 2, 2), "OutputTensor.DataType", {"UINT32", "FLOAT32"});
  }
  SUBCASE("indices are INT32, UINT32, INT64 or UINT64") {
    for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_UINT8}) {
      Tensor idx(type, {1, 3, 1});
      test::expectInvalid(s.make(input, idx, updates, output, 2, 2), "IndicesTensor.DataType",
                          {vkdml::toString(type), "UINT32, INT32, UINT64, INT64"});
    }
  }
  SUBCASE("the output has the input's sizes") {
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 4, 6});
    test::expectInvalid(s.make(input, indices, updates, out, 2, 2), "OutputTensor.Sizes[2]", {"5", "6"});
  }
  SUBCASE("InputDimensionCount is 1..DimensionCount") {
    test::expectInvalid(s.make(input, indices, updates, output, 0, 2), "InputDimensionCount", {"1..3", "0"});
    test::expectInvalid(s.make(input, indices, updates, output, 4, 2), "InputDimensionCount", {"1..3", "4"});
  }
  SUBCASE("IndicesDimensionCount is 1..DimensionCount") {
    test::expectInvalid(s.make(input, indices, updates, output, 2, 0), "IndicesDimensionCount", {"1..3", "0"});
    test::expectInvalid(s.make(input, indices, updates, output, 2, 4), "IndicesDimensionCount", {"1..3", "4"});
  }
  SUBCASE("the input's dimensions before the last InputDimensionCount are 1") {
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 4, 5});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 4, 5});
    test::expectInvalid(s.make(in, indices, updates, out, 2, 2), "InputTensor.Sizes[0]",
                        {"InputDimensionCount = 2", "{2,4,5}"});
  }
  SUBCASE("the indices' dimensions before the last IndicesDimensionCount are 1") {
    Tensor idx(DML_TENSOR_DATA_TYPE_INT32, {2, 3, 1});
    test::expectInvalid(s.make(input, idx, updates, output, 2, 2), "IndicesTensor.Sizes[0]",
                        {"IndicesDimensionCount = 2", "{2,3,1}"});
  }
  SUBCASE("the tuple length is at most InputDimensionCount") {
    Tensor idx(DML_TENSOR_DATA_TYPE_INT32, {1, 3, 3});
    Tensor upd(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 3});
    test::expectInvalid(s.make(input, idx, upd, output, 2, 2), "IndicesTensor.Sizes[2]",
                        {"InputDimensionCount = 2", "not 3"});
  }
  SUBCASE("the updates' shape fits in DimensionCount") {
    // indices {2,3,1} (all meaningful): updates would be {2,3} ++ {4,5} = 4 dimensions.
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 4, 5});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 4, 5});
    Tensor idx(DML_TENSOR_DATA_TYPE_INT32, {2, 3, 1});
    Tensor upd(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 4, 5});
    test::expectInvalid(s.make(in, idx, upd, out, 3, 3), "UpdatesTensor.DimensionCount", {"{2,3,4,5}", "4", "3"});
  }
  SUBCASE("the updates' sizes are the indices' leading sizes then the input's trailing ones") {
    Tensor upd(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 3, 4});
    test::expectInvalid(s.make(input, indices, upd, output, 2, 2), "UpdatesTensor.Sizes[2]", {"{1,3,5}", "{1,3,4}"});
    Tensor upd2(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 1, 5});
    test::expectInvalid(s.make(input, indices, upd2, output, 2, 2), "UpdatesTensor.Sizes[0]", {"{1,3,5}", "{3,1,5}"});
  }
  SUBCASE("an output's elements must not overlap") {
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 4, 5}, {20, 0, 1});
    test::expectInvalid(s.make(input, indices, updates, out, 2, 2), "OutputTensor.Strides", {"overlap"});
  }
  SUBCASE("each tensor's own descriptor is checked") {
    s.make(input, indices, updates, output, 2, 2);
    indices.buffer.TotalTensorSizeInBytes = 4;
    test::expectInvalid(s.op, "IndicesTensor.TotalTensorSizeInBytes", {"12"});
  }
}
