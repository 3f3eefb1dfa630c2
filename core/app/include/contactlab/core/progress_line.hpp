// The command line's live progress on a terminal: one line on stderr, redrawn a few times a
// second, cleared when done (compare's display and run's look alike).
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "contactlab/core/simulation.hpp"

namespace contactlab::core {

/// A wall time as the progress lines show it: "12.5 s", "3:05", "1:02:03"; "?" when unknown.
std::string duration_text(double seconds);

/// While it lives, redraws "t = … s of … s (…%), N steps; … elapsed, about … left" from a run's
/// RunProgress every quarter second on stderr; when stderr is not a terminal it shows nothing.
class RunProgressLine {
 public:
  RunProgressLine(const RunProgress& progress, double duration_s);
  ~RunProgressLine();
  RunProgressLine(const RunProgressLine&) = delete;
  RunProgressLine& operator=(const RunProgressLine&) = delete;

 private:
  void draw(double elapsed_s) const;

  const RunProgress& progress_;
  double duration_s_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace contactlab::core
