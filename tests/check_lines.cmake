# cmake -DSOURCE_DIR=<repository> [-DMAX_LINES=600] -P tests/check_lines.cmake
#
# Checks that no source file is longer than MAX_LINES lines (600 unless
# given): every .cpp, .hpp, .h, .c, .comp, .glsl, .py and .sh file under
# runtime/, shaders/, tools/, tests/, fuzz/ and bench/. A longer file is
# split by concern, into files that each do one thing. Every failure is
# printed as file: its line count.
if(NOT SOURCE_DIR)
  get_filename_component(SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
endif()
if(NOT MAX_LINES)
  set(MAX_LINES 600)
endif()

set(patterns "")
foreach(folder runtime shaders tools tests fuzz bench)
  foreach(extension cpp hpp h c comp glsl py sh)
    list(APPEND patterns "${SOURCE_DIR}/${folder}/*.${extension}")
  endforeach()
endforeach()
file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR} ${patterns})
list(SORT sources)

set(failures 0)
list(LENGTH sources checked)
foreach(source ${sources})
  file(READ "${SOURCE_DIR}/${source}" text)
  # wc -l's count: the newlines, and a last line without one.
  string(REGEX REPLACE "[^\n]" "" newlines "${text}")
  string(LENGTH "${newlines}" lines)
  if(NOT text STREQUAL "" AND NOT text MATCHES "\n$")
    math(EXPR lines "${lines} + 1")
  endif()
  if(lines GREATER MAX_LINES)
    message("${source}: ${lines} lines, more than ${MAX_LINES}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()

if(checked EQUAL 0)
  message(FATAL_ERROR "no source files found under ${SOURCE_DIR}")
endif()
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} of ${checked} source files have more than ${MAX_LINES} lines")
endif()
message("${checked} source files, none over ${MAX_LINES} lines")
