// weft-bench parallel: overhead_cases (being written).
#include "parallel/cases.hpp"

namespace weft::bench::parallel {

std::vector<Case> overhead_cases(const Options&) { return {}; }

}  // namespace weft::bench::parallel
