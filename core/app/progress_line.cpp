// The command line's live progress line (see progress_line.hpp).
#include "contactlab/core/progress_line.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

namespace contactlab::core {

std::string duration_text(double seconds) {
  if (!(seconds >= 0)) return "?";
  const long total = static_cast<long>(seconds + 0.5);
  char buffer[32];
  if (seconds < 60) {
    std::snprintf(buffer, sizeof buffer, "%.1f s", seconds);
  } else if (total < 3600) {
    std::snprintf(buffer, sizeof buffer, "%ld:%02ld", total / 60, total % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%ld:%02ld:%02ld", total / 3600, total / 60 % 60,
                  total % 60);
  }
  return buffer;
}

RunProgressLine::RunProgressLine(const RunProgress& progress, double duration_s)
    : progress_(progress), duration_s_(duration_s) {
  if (isatty(2) == 0) return;
  thread_ = std::thread([this] {
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return done_; }))
      draw(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    std::cerr << "\r\x1b[K" << std::flush;
  });
}

RunProgressLine::~RunProgressLine() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void RunProgressLine::draw(double elapsed_s) const {
  const double t = progress_.time_s.load(std::memory_order_relaxed);
  const long long steps = progress_.steps.load(std::memory_order_relaxed);
  const double fraction = duration_s_ > 0.0 ? t / duration_s_ : 0.0;
  // Time left at the average pace so far.
  const double left = fraction > 0.0 ? elapsed_s * (1.0 - fraction) / fraction : -1.0;
  char line[160];
  std::snprintf(line, sizeof line, "t = %.4g s of %g s (%.0f %%), %lld steps; ", t, duration_s_,
                100.0 * fraction, steps);
  std::cerr << "\r\x1b[K" << line << duration_text(elapsed_s) << " elapsed, about "
            << duration_text(left) << " left" << std::flush;
}

}  // namespace contactlab::core
