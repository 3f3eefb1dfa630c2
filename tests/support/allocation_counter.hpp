// One heap-allocation counter for every test program (unit, validation, conformance): tests that
// assert a hot path allocates nothing count with it.
//
// Link the object library `contactlab_test_allocation_counter` (tests/CMakeLists.txt) into the
// program and include this header; the definitions live in allocation_counter.cpp, once per
// program. Allocations are counted at the malloc level, so operator new (libstdc++'s calls
// malloc), Eigen's aligned allocations and C code are all seen, on every thread, in code loaded by
// dlopen too:
//   - with glibc, allocation_counter.cpp replaces malloc & co. by functions that count and forward
//     to glibc's own allocator (__libc_*), so every block is allocated and released by one
//     allocator;
//   - under a sanitizer runtime (ASan, TSan, MSan), which replaces malloc itself, the count comes
//     from the runtime's malloc hook (__sanitizer_install_malloc_and_free_hooks);
//   - elsewhere nothing counts: allocation_counting_available() is false and a test skips
//     (CONTACTLAB_SKIP, tests/support/skip.hpp) rather than pass without counting.
#pragma once

namespace contactlab::testing {

/// True when this program can count heap allocations (see above).
bool allocation_counting_available();

/// Sets the count to zero and starts counting heap allocations (malloc, calloc, realloc and the
/// aligned forms; hence operator new) on every thread.
void start_counting_allocations();

/// Stops counting and returns how many allocations were made since start_counting_allocations().
long stop_counting_allocations();

/// The allocations `f()` makes.
template <class F>
long allocations_during(F&& f) {
  struct StopOnThrow {  // a REQUIRE inside f throws: counting must not go on behind it
    bool counting = true;
    ~StopOnThrow() {
      if (counting) stop_counting_allocations();
    }
  } guard;
  start_counting_allocations();
  f();
  guard.counting = false;
  return stop_counting_allocations();
}

}  // namespace contactlab::testing
