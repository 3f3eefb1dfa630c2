# Fails when a Catch test binary has a test name that catch_discover_tests cannot register:
# - unbalanced square brackets: CMake list handling then merges every later name into one entry,
#   and those tests silently vanish from ctest;
# - a semicolon: CMake splits the name into two list entries, each registered as a test whose
#   filter matches no test case (they "passed" without running until the tests were given
#   --warn NoTests, tests/CMakeLists.txt).
# Usage: cmake -DBINARY=<test binary> -P check_test_names.cmake
execute_process(COMMAND ${BINARY} --list-test-names-only OUTPUT_VARIABLE names
                RESULT_VARIABLE result)
# (a semicolon in the output would split the lines below too: find them first)
string(REGEX MATCHALL "[^\n]*;[^\n]*" with_semicolons "${names}")
if(with_semicolons)
  message(FATAL_ERROR "test names with a semicolon (ctest would split them into tests that run "
                      "nothing; write a comma): ${with_semicolons}")
endif()
if(NOT result EQUAL 0 AND NOT result GREATER 0)
  message(FATAL_ERROR "${BINARY} --list-test-names-only failed: ${result}")
endif()
set(bad "")
string(REGEX MATCHALL "[^\n]+" lines "${names}")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "[^[]" "" opens "${line}")
  string(REGEX REPLACE "[^]]" "" closes "${line}")
  string(LENGTH "${opens}" n_open)
  string(LENGTH "${closes}" n_close)
  if(NOT n_open EQUAL n_close)
    string(APPEND bad "\n  ${line}")
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "test names with unbalanced square brackets (ctest would drop the tests "
                      "after them):${bad}")
endif()
