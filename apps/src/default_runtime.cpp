#include "weft/apps/default_runtime.hpp"

namespace weft {

Config default_runtime_config() { return Config::from_env(Config{}); }

Runtime& default_runtime() {
  // A function-local static: started by the first caller (thread-safe), shut
  // down by the static destructors at exit after every ULT finished.
  static Runtime runtime(default_runtime_config());
  return runtime;
}

}  // namespace weft
