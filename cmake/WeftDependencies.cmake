# Every dependency is a Debian 12 package; scripts/install-deps.sh installs them.
find_package(Threads REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS context)
find_package(PkgConfig REQUIRED)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET GLOBAL hwloc)
find_library(NUMA_LIBRARY numa REQUIRED)
find_path(NUMA_INCLUDE_DIR numa.h REQUIRED)
if(NOT TARGET weft_numa)
  add_library(weft_numa INTERFACE IMPORTED GLOBAL)
  set_target_properties(weft_numa PROPERTIES
    INTERFACE_LINK_LIBRARIES "${NUMA_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NUMA_INCLUDE_DIR}")
endif()
