# The model fuzzer (model_fuzzer.cpp): arbitrary bytes through vkdml-dispatch's
# lenient JSON reader, model parser, initializers and descriptor builder.
add_executable(model_fuzzer ${CMAKE_CURRENT_LIST_DIR}/model_fuzzer.cpp)
target_link_libraries(model_fuzzer PRIVATE vkdml_dispatch_lib)
target_compile_options(model_fuzzer PRIVATE -fsanitize=fuzzer,address,undefined ${VKDML_WARNINGS})
target_link_options(model_fuzzer PRIVATE -fsanitize=fuzzer,address,undefined)
