// weft-bench parallel: loop_cases (being written).
#include "parallel/cases.hpp"

namespace weft::bench::parallel {

std::vector<Case> loop_cases(const Options&) { return {}; }

}  // namespace weft::bench::parallel
