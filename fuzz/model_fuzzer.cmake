# The model fuzzer (fuzz/model_fuzzer.cpp), to be included from the fuzz
# setup's CMakeLists.txt (clang; VKDML_BUILD_TOOLS on, so that
# vkdml_dispatch_lib exists):
#
#   include(${CMAKE_CURRENT_SOURCE_DIR}/model_fuzzer.cmake)
#
# Run: build-fuzz/fuzz/model_fuzzer -max_total_time=180 fuzz/model_corpus
# (seed the corpus with tests/models/*.json).
add_executable(model_fuzzer ${CMAKE_CURRENT_LIST_DIR}/model_fuzzer.cpp)
target_link_libraries(model_fuzzer PRIVATE vkdml_dispatch_lib)
target_compile_options(model_fuzzer PRIVATE -fsanitize=fuzzer,address,undefined ${VKDML_WARNINGS})
target_link_options(model_fuzzer PRIVATE -fsanitize=fuzzer,address,undefined)
