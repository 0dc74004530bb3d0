// The descriptor fields of each operator vkdml-dispatch runs, read in
// DxDispatch's order (JsonParsersGenerated.cpp) into the model's plain
// descriptors, with where each field was written.
#pragma once

#include <string>

#include "field_reader.hpp"
#include "model.hpp"

namespace dispatch {

// "JOIN" (the name without DML_OPERATOR_) is one vkdml-dispatch runs.
bool isKnownOperator(const std::string& op);
std::string knownOperators();  // "DML_OPERATOR_SLICE, DML_OPERATOR_SLICE1, ..."
// Reads `desc`'s fields for `op` into d.desc and d.fields.
void parseOperatorFields(FieldReader& reader, Object& desc, Dispatchable& d, const std::string& op);

}  // namespace dispatch
