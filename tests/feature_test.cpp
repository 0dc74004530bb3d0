// Device::featureSupport (DirectML's CheckFeatureSupport): what it lists
// agrees with the operator table and with what createOperator accepts.
#include <algorithm>

#include "small_operators.hpp"
#include "support.hpp"

TEST_CASE("feature: every operator of the table, in its order, with its tensors") {
  const vkdml::FeatureSupport support = test::device().featureSupport();
  CHECK(support.featureLevel == 0x5100);
  const std::pair<DML_OPERATOR_TYPE, const char*> rows[] = {
#define VKDML_OPERATOR(type, name, Desc, inputs, outputs, create, dataTypes) {type, name},
#include "operators.inc"
#undef VKDML_OPERATOR
  };
  REQUIRE(support.operators.size() == std::size(rows));
  for (size_t i = 0; i < support.operators.size(); ++i) {
    const vkdml::OperatorSupport& op = support.operators[i];
    CHECK(op.type == rows[i].first);
    CHECK(op.name == rows[i].second);
    CHECK(!op.inputs.empty());
    CHECK(op.outputs.size() == 1);
    for (const auto* tensors : {&op.inputs, &op.outputs})
      for (const vkdml::TensorSupport& t : *tensors) CHECK(!t.dataTypes.empty());
    CHECK(op.convolutionPaths.empty() == (op.type != DML_OPERATOR_CONVOLUTION_INTEGER));
  }
  CHECK(support.operators[0].inputs[0].dataTypes.size() == 11);  // DML_JOIN: any type
}

TEST_CASE("feature: ConvolutionInteger's output types: listed ones accepted, others rejected") {
  vkdml::Device& d = test::device();
  const vkdml::FeatureSupport support = d.featureSupport();
  const auto conv = std::find_if(support.operators.begin(), support.operators.end(),
                                 [](const auto& op) { return op.type == DML_OPERATOR_CONVOLUTION_INTEGER; });
  REQUIRE(conv != support.operators.end());
  const std::vector<DML_TENSOR_DATA_TYPE>& listed = conv->outputs[0].dataTypes;
  CHECK(listed == std::vector<DML_TENSOR_DATA_TYPE>{DML_TENSOR_DATA_TYPE_INT32});
  for (uint32_t type = DML_TENSOR_DATA_TYPE_FLOAT32; type <= DML_TENSOR_DATA_TYPE_INT64; ++type) {
    auto op = test::smallConvolution(8);
    op->output.buffer.DataType = static_cast<DML_TENSOR_DATA_TYPE>(type);
    INFO("type " << type);
    if (std::find(listed.begin(), listed.end(), type) != listed.end()) {
      CHECK_NOTHROW(d.createOperator(op->desc));
    } else {
      try {
        d.createOperator(op->desc);
        FAIL("accepted");
      } catch (const vkdml::Error& e) {
        CHECK(e.code() == vkdml::ErrorCode::InvalidArgument);
        // Element sizes the byte count still covers fail on the type itself.
        if (vkdmlElementSizeInBytes(static_cast<DML_TENSOR_DATA_TYPE>(type)) <= 4)
          CHECK(e.field() == "OutputTensor.DataType");
      }
    }
  }
}

TEST_CASE("feature: ConvolutionInteger's paths follow the device") {
  vkdml::Device& d = test::device();
  for (const vkdml::OperatorSupport& op : d.featureSupport().operators) {
    if (op.type != DML_OPERATOR_CONVOLUTION_INTEGER) continue;
    const auto has = [&](vkdml::ConvolutionPath path) {
      return std::find(op.convolutionPaths.begin(), op.convolutionPaths.end(), path) != op.convolutionPaths.end();
    };
    CHECK(has(vkdml::ConvolutionPath::Portable));
    CHECK(!has(vkdml::ConvolutionPath::Auto));
    CHECK(has(vkdml::ConvolutionPath::CooperativeMatrix) == d.info().cooperativeMatrixInt8);
    CHECK(has(vkdml::ConvolutionPath::CooperativeMatrixKHR) == d.info().cooperativeMatrixKHRInt8);
    CHECK(has(vkdml::ConvolutionPath::DotProduct) == d.info().integerDotProduct);
    // Each path listed compiles.
    auto small = test::smallConvolution(8);
    vkdml::Operator created = d.createOperator(small->desc);
    for (vkdml::ConvolutionPath path : op.convolutionPaths) {
      vkdml::CompileOptions options;
      options.convolutionPath = path;
      CHECK_NOTHROW(d.compileOperator(created, options));
    }
  }
}
