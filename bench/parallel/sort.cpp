// weft-bench parallel: sort_cases (being written).
#include "parallel/cases.hpp"

namespace weft::bench::parallel {

std::vector<Case> sort_cases(const Options&) { return {}; }

}  // namespace weft::bench::parallel
