# Installs vkdml into a temporary prefix, then configures, builds and runs a
# separate project that finds it with find_package(vkdml); runs the
# installed bin/vkdml-dispatch (DISPATCH=1 when it was built).
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
  RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "cmake --install failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${WORK_DIR}/build
  -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "configuring the consumer failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "building the consumer failed")
endif()
execute_process(COMMAND ${WORK_DIR}/build/consumer RESULT_VARIABLE r OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "consumer: ${out}${err}")
if(r OR NOT out MATCHES "joined: 1 2 5 6 9 10 3 4 7 8 11 12")
  message(FATAL_ERROR "the consumer failed (${r})")
endif()
if(DISPATCH)
  execute_process(COMMAND ${WORK_DIR}/prefix/bin/vkdml-dispatch ${SOURCE_DIR}/tests/models/join_parts.json
    RESULT_VARIABLE r OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "vkdml-dispatch: ${out}${err}")
  if(r OR NOT out MATCHES "Resource 'joined': 50, 60, -1, -2, -3, 90, 100, 110, 120")
    message(FATAL_ERROR "the installed vkdml-dispatch failed (${r})")
  endif()
endif()
