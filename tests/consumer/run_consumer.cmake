# Script mode: build and run a tiny program against weft the way a user does.
#   MODE=find_package     install weft, build the consumer with find_package(weft), run it
#                         (find_package_mpi: the same, the consumer asking for COMPONENTS mpi).
#   MODE=add_subdirectory configure a project that embeds weft's source tree with the
#                         test-only packages disabled (tests, benchmarks and tools must
#                         default to off), and check that it installs nothing of weft's.
file(REMOVE_RECURSE ${WORK_DIR})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer step failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
if(MODE STREQUAL "find_package" OR MODE STREQUAL "find_package_mpi")
  step(${CMAKE_COMMAND} --install ${WEFT_BUILD_DIR} --prefix ${WORK_DIR}/prefix)
  step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/build -G ${GENERATOR}
       -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release)
  step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
  step(${WORK_DIR}/build/consumer)
elseif(MODE STREQUAL "add_subdirectory")
  set(disabled)
  foreach(pkg GTest TBB OpenMP benchmark boost_fiber)
    list(APPEND disabled -DCMAKE_DISABLE_FIND_PACKAGE_${pkg}=ON)
  endforeach()
  step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/build -G ${GENERATOR}
       -DWEFT_SOURCE_DIR=${WEFT_SOURCE_DIR} -DCMAKE_BUILD_TYPE=Release ${disabled})
  step(${CMAKE_COMMAND} --install ${WORK_DIR}/build --prefix ${WORK_DIR}/prefix)
  file(GLOB_RECURSE installed ${WORK_DIR}/prefix/*)
  if(installed)
    message(FATAL_ERROR "an embedded weft installed files: ${installed}")
  endif()
else()
  message(FATAL_ERROR "run_consumer.cmake: MODE='${MODE}' is not find_package, find_package_mpi or add_subdirectory")
endif()
