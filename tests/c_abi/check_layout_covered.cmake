# Fails unless struct_layout_test.c freezes every struct the public headers
# define (a new struct must not go unfrozen).
#   cmake -DHEADERS=include/ferry -DTEST=struct_layout_test.c -P check_layout_covered.cmake
file(READ ${TEST} test_text)
file(GLOB headers ${HEADERS}/*.h)
set(count 0)
foreach(header IN LISTS headers)
  file(READ ${header} text)
  string(REGEX MATCHALL "typedef struct ferry_[a-z0-9_]+ {" found "${text}")
  foreach(def IN LISTS found)
    string(REGEX REPLACE "typedef struct (ferry_[a-z0-9_]+) {" "\\1" name "${def}")
    if(NOT test_text MATCHES "STRUCT\\(${name}, ")
      message(FATAL_ERROR "${header} defines ${name}, which struct_layout_test.c does not freeze")
    endif()
    math(EXPR count "${count} + 1")
  endforeach()
endforeach()
message(STATUS "struct_layout_test.c freezes all ${count} public structs")
