# Fails when a Catch test binary has a test name with unbalanced square brackets: CMake list
# handling in catch_discover_tests then merges every later name into one entry, and those tests
# silently vanish from ctest. Usage: cmake -DBINARY=<test binary> -P check_test_names.cmake
execute_process(COMMAND ${BINARY} --list-test-names-only OUTPUT_VARIABLE names
                RESULT_VARIABLE result)
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
