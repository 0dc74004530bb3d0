# cmake -DSOURCE_DIR=<repository> -P tests/check_docs.cmake
#
# Checks that what the documentation points at exists: README.md, docs/*.md,
# bench/RESULTS.md and bench/results/*.md. Fails on
#   - a relative markdown link or image, [text](target) or ![alt](target),
#     whose target (resolved against the file's folder, #anchor dropped) is
#     missing;
#   - a repository path that is missing, written in backticks (`bench/cases.cpp`)
#     or plain (bench/cases.cpp): a path is a token that starts with one of the
#     repository's top-level folders (bench/, docs/, runtime/, ...) and is made
#     of letters, digits and _ . / + - (not after a colon, so that
#     `git show <commit>:<path>` may name a file of the past), or, in backticks, a name ending in .md
#     (`fuzz/README.md`, `OPERATORS.md`), looked up at the root. Placeholders
#     end a token (`shaders/<kernel>.comp` checks `shaders/`), and so do
#     wildcards (`tests/models/*.json` checks `tests/models/`).
# Every failure is printed as file:line: what is missing.
if(NOT SOURCE_DIR)
  get_filename_component(SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
endif()

set(top_folders bench cmake docs fuzz include runtime shaders tests tools)
list(JOIN top_folders "|" top_alternatives)
set(path_chars "A-Za-z0-9_./+-")

file(GLOB docs RELATIVE ${SOURCE_DIR}
  ${SOURCE_DIR}/README.md ${SOURCE_DIR}/docs/*.md ${SOURCE_DIR}/bench/RESULTS.md ${SOURCE_DIR}/bench/results/*.md)
list(SORT docs)

set(failures 0)
set(checked 0)
# check(<doc> <line> <what> <path relative to base> <base folder>)
function(check doc line what path base)
  string(REGEX REPLACE "#.*$" "" path "${path}")
  if(path STREQUAL "")
    return()
  endif()
  # The steering repository's shared/ lies beside the checkout on the
  # project's machines (and CI's), not in every clone: checked where it is.
  get_filename_component(full "${base}/${path}" ABSOLUTE)
  get_filename_component(shared "${SOURCE_DIR}/../shared" ABSOLUTE)
  if(full MATCHES "^${shared}/" AND NOT EXISTS "${shared}")
    return()
  endif()
  math(EXPR n "${checked} + 1")
  set(checked ${n} PARENT_SCOPE)
  if(NOT EXISTS "${base}/${path}")
    message("${doc}:${line}: ${what} ${path}: no such file or folder")
    math(EXPR n "${failures} + 1")
    set(failures ${n} PARENT_SCOPE)
  endif()
endfunction()

foreach(doc ${docs})
  get_filename_component(doc_dir "${SOURCE_DIR}/${doc}" DIRECTORY)
  file(READ "${SOURCE_DIR}/${doc}" text)
  # Lines as a list: protect the list separator and brackets first.
  string(REPLACE "\\" "<backslash>" text "${text}")
  string(REPLACE ";" "<semicolon>" text "${text}")
  string(REPLACE "[" "<open>" text "${text}")
  string(REPLACE "]" "<close>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(line_number 0)
  set(fenced FALSE)
  foreach(line IN LISTS lines)
    math(EXPR line_number "${line_number} + 1")
    if(line MATCHES "^[ ]*```")
      if(fenced)
        set(fenced FALSE)
      else()
        set(fenced TRUE)
      endif()
      continue()
    endif()
    if(NOT fenced)
      # Markdown links and images: <close>(target)
      string(REGEX MATCHALL "<close>\\([^ )]+\\)" links "${line}")
      foreach(link IN LISTS links)
        string(REGEX REPLACE "^<close>\\(([^ )]+)\\)$" "\\1" target "${link}")
        if(NOT target MATCHES "^[a-z]+:" AND NOT target MATCHES "^#")
          check(${doc} ${line_number} "link to" "${target}" "${doc_dir}")
        endif()
      endforeach()
      # Code spans: a whole span that names a markdown file.
      string(REGEX MATCHALL "`[^`]+`" spans "${line}")
      foreach(span IN LISTS spans)
        string(REGEX REPLACE "^`(.*)`$" "\\1" span "${span}")
        if(span MATCHES "^[${path_chars}]+\\.md$" AND NOT span MATCHES "^(${top_alternatives})/")
          check(${doc} ${line_number} "file" "${span}" "${SOURCE_DIR}")
        endif()
      endforeach()
    endif()
    # Repository paths, in backticks or not, in code blocks too (commands).
    string(REGEX MATCHALL "[ `(\"'=,>](${top_alternatives})/[${path_chars}]*" paths " ${line}")
    foreach(path IN LISTS paths)
      string(REGEX REPLACE "^[ `(\"'=,>]" "" path "${path}")
      string(REGEX REPLACE "[.]+$" "" path "${path}")  # the sentence's full stop
      check(${doc} ${line_number} "path" "${path}" "${SOURCE_DIR}")
    endforeach()
  endforeach()
endforeach()

list(LENGTH docs doc_count)
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} of ${checked} links and paths in ${doc_count} documents point at nothing")
endif()
message(STATUS "${checked} links and paths in ${doc_count} documents: all exist")
