#pragma once

#include <atomic>
#include <cerrno>
#include <cstddef>

// Counts heap allocations at the malloc level, for tests that assert a hot path allocates
// nothing. Include it in exactly ONE translation unit per test binary: it defines malloc & co.
//
// operator new is already replaced in this binary in the unit tests
// (test_narrow_phase_gjk_epa.cpp), and it calls std::malloc, as Eigen does. So allocations are
// counted one level lower: glibc lets a program replace malloc & co.; these replacements only count
// and forward to glibc's own allocator
// (__libc_*), so every block is still allocated and released by the same allocator. Sanitizer
// runtimes replace malloc themselves: there the counter is left out and the test only warns.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define CONTACTLAB_TEST_NO_MALLOC_COUNT
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__GLIBC__)
#define CONTACTLAB_TEST_NO_MALLOC_COUNT
#endif

#include "allocation_counters.hpp"

#ifndef CONTACTLAB_TEST_NO_MALLOC_COUNT
extern "C" {
void* __libc_malloc(std::size_t size);
void __libc_free(void* p);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);

static void contactlab_count_allocation() {
  if (contactlab::testing::count_allocations.load(std::memory_order_relaxed))
    contactlab::testing::allocations.fetch_add(1, std::memory_order_relaxed);
}
void* malloc(std::size_t size) noexcept {
  contactlab_count_allocation();
  return __libc_malloc(size);
}
void free(void* p) noexcept {
  __libc_free(p);
}
void* calloc(std::size_t count, std::size_t size) noexcept {
  contactlab_count_allocation();
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) noexcept {
  contactlab_count_allocation();
  return __libc_realloc(p, size);
}
void* memalign(std::size_t alignment, std::size_t size) noexcept {
  contactlab_count_allocation();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  contactlab_count_allocation();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) noexcept {
  contactlab_count_allocation();
  void* p = __libc_memalign(alignment, size);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
}  // extern "C"
#endif
