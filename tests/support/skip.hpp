// Skipping a test case that cannot run here (a tool is missing, allocations cannot be counted),
// so that ctest shows it as skipped rather than passed. Catch2 v2 has no SKIP: CONTACTLAB_SKIP
// records the skip and returns from the test case; the test programs' main (catch_main.cpp) then
// exits with kSkipReturnCode when every test case it ran was skipped, which ctest reports as
// "Skipped" (the SKIP_RETURN_CODE of every test that catch_discover_tests registers,
// tests/CMakeLists.txt: ctest runs one test case per process). A run of several test cases in one
// process, some skipped, passes with the skips as warnings.
#pragma once

#include <sstream>
#include <string>

#include <catch2/catch.hpp>

namespace contactlab::testing {

/// The exit code of a test program whose every test case was skipped (ctest's SKIP_RETURN_CODE).
inline constexpr int kSkipReturnCode = 77;

/// Records that the running test case is skipped.
void mark_skipped();

/// True when at least one test case ran and every one of them was skipped.
bool every_test_case_skipped();

}  // namespace contactlab::testing

/// Ends the running test case (or SECTION) as skipped, the reason (a stream expression, as INFO
/// takes) shown as a warning. Use it where the test case would return.
#define CONTACTLAB_SKIP(reason)                        \
  do {                                                 \
    std::ostringstream contactlab_skip_reason;         \
    contactlab_skip_reason << reason;                  \
    WARN("skipped: " << contactlab_skip_reason.str()); \
    ::contactlab::testing::mark_skipped();             \
    return;                                            \
  } while (false)
