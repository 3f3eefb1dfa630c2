// The definitions of allocation_counter.hpp: the counter and the hook that feeds it, once per
// test program (the object library contactlab_test_allocation_counter).
#include "allocation_counter.hpp"

#include <atomic>
#include <cerrno>
#include <cstddef>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define CONTACTLAB_TEST_SANITIZER_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CONTACTLAB_TEST_SANITIZER_ALLOCATOR 1
#endif

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};

void count_allocation() {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

#if defined(CONTACTLAB_TEST_SANITIZER_ALLOCATOR)
// The sanitizer runtime owns malloc; it calls this hook for every allocation it makes (operator new
// included). Declared here: GCC ships no <sanitizer/allocator_interface.h>, its runtimes export it.
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*,
                                                                             std::size_t),
                                                         void (*free_hook)(const volatile void*));

namespace {
void on_malloc(const volatile void*, std::size_t) {
  count_allocation();
}
void on_free(const volatile void*) {}
const bool hooks_installed = __sanitizer_install_malloc_and_free_hooks(&on_malloc, &on_free) != 0;
}  // namespace

bool contactlab::testing::allocation_counting_available() {
  return hooks_installed;
}

#elif defined(__GLIBC__)
// glibc lets a program replace malloc & co.: these count and forward to glibc's own allocator, so
// every block is still allocated and released by the same allocator.
extern "C" {
void* __libc_malloc(std::size_t size);
void __libc_free(void* p);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);

void* malloc(std::size_t size) noexcept {
  count_allocation();
  return __libc_malloc(size);
}
void free(void* p) noexcept {
  __libc_free(p);
}
void* calloc(std::size_t count, std::size_t size) noexcept {
  count_allocation();
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) noexcept {
  count_allocation();
  return __libc_realloc(p, size);
}
void* memalign(std::size_t alignment, std::size_t size) noexcept {
  count_allocation();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  count_allocation();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) noexcept {
  count_allocation();
  void* p = __libc_memalign(alignment, size);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
}  // extern "C"

bool contactlab::testing::allocation_counting_available() {
  return true;
}

#else
bool contactlab::testing::allocation_counting_available() {
  return false;
}
#endif

void contactlab::testing::start_counting_allocations() {
  allocations.store(0, std::memory_order_relaxed);
  counting.store(true, std::memory_order_seq_cst);
}

long contactlab::testing::stop_counting_allocations() {
  counting.store(false, std::memory_order_seq_cst);
  return allocations.load(std::memory_order_relaxed);
}
