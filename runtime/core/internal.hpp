// runtime/core: what every operator file builds on, pure C++ (no Vulkan
// calls, no volk): access to the objects behind the handles, the errors, the tensor rules, checked arithmetic
// (checked.hpp), the plan and its loop model, and the grids.
#pragma once

#include "access.hpp"
#include "checked.hpp"
#include "error.hpp"
#include "grid.hpp"
#include "plan.hpp"
#include "tensor.hpp"
