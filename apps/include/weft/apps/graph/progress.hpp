#pragma once
// Progress of a long step (generating, building, reading a file), for a
// command line that shows it on a terminal. The callback gets the step's name
// ("generate", "build", "read", ...) and the fraction done in [0, 1]; it is
// called at most about once per percent, from whichever worker got there,
// never by two at once. An empty function reports nothing.

#include <functional>
#include <string_view>

namespace weft::graph {

using ProgressFn = std::function<void(std::string_view step, double fraction)>;

}  // namespace weft::graph
