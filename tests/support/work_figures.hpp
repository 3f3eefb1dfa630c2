// Work figures: how much work an algorithm did on a test's poses (iterations, supports, Newton
// steps, how often a certificate, a warm start or a fast path answered). They are not test
// assertions: a correct algorithm that takes one step more must pass its tests. A test that
// measures such a figure reports it here and carries the tag [budget];
// tools/bench/check_budgets.py runs the [budget] test cases, collects their figures and checks
// each against its budget (the table in that script, documented in tools/bench/README.md).
#pragma once

#include <string>

namespace contactlab::testing {

/// Reports the figure `key` (the name of its budget, e.g. "gjk_epa.cylinder_clamp.mean_iterations")
/// for the case `where` (a shape pair, a precision; "" when there is one case). Appended as a line
/// `key<TAB>where<TAB>value` to the file that the environment variable CONTACTLAB_WORK_FIGURES
/// names; without it, nothing happens.
void report_work_figure(const std::string& key, const std::string& where, double value);

}  // namespace contactlab::testing
