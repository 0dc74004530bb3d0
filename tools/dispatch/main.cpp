// vkdml-dispatch: runs DxDispatch's JSON models of DirectML operators on
// vkdml (docs/vkdml-dispatch.md).
#include <iostream>
#include <string>
#include <vector>

#include "tool.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return dispatch::runTool(args, std::cout, std::cerr);
}
