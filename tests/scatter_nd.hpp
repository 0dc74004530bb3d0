// What the DML_SCATTER_ND tests share: the descriptor builder.
#pragma once

#include "support.hpp"

namespace test {

struct ScatterNd {
  DML_SCATTER_ND_OPERATOR_DESC desc{};
  DML_OPERATOR_DESC op{};

  const DML_OPERATOR_DESC& make(Tensor& input, Tensor& indices, Tensor& updates, Tensor& output, uint32_t inputDims,
                                uint32_t indicesDims) {
    desc = {input.desc(), indices.desc(), updates.desc(), output.desc(), inputDims, indicesDims};
    op = {DML_OPERATOR_SCATTER_ND, &desc};
    return op;
  }
};

}  // namespace test
