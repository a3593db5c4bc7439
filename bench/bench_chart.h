// ferry-bench's picture: an SVG bar chart of each row's ratio to the limit, with
// the 1.0 line and each row's target. Plain text, no dependency.
#pragma once

#include <string>
#include <vector>

#include "bench/bench_report.h"

namespace ferry::bench {

// The chart as SVG text.
std::string chart_svg(const Meta& meta, const std::vector<Row>& rows);
// Writes chart_svg() to `path`; false if it cannot.
bool write_svg(const std::string& path, const Meta& meta, const std::vector<Row>& rows);

}  // namespace ferry::bench
