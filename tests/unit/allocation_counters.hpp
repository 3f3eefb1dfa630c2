#pragma once

#include <atomic>

// The counters that malloc_counter.hpp increments. malloc_counter.hpp (which defines malloc & co.)
// is included in exactly one translation unit per test binary; every other file that reads or
// sets the counters includes this header only.
namespace contactlab::testing {
/// Set to count; allocations counts malloc-family calls while it is set.
inline std::atomic<bool> count_allocations{false};
inline std::atomic<long> allocations{0};
}  // namespace contactlab::testing
