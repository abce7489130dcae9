# Runs one command and checks how it ended (the ctest `-P` driver of the
# OpenMP tests that expect a failure, or a line of output):
#   cmake -DCOMMAND=<program;args> -DENV=<VAR=value;...> -DEXIT=zero|nonzero
#         -DREGEX=<regular expression the output must match> -P run_expect.cmake
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${ENV} ${COMMAND}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
set(all "${out}${err}")
if(EXIT STREQUAL "zero" AND NOT status EQUAL 0)
  message(FATAL_ERROR "expected exit status 0, got '${status}'; output:\n${all}")
elseif(EXIT STREQUAL "nonzero" AND status EQUAL 0)
  message(FATAL_ERROR "expected a failure, got exit status 0; output:\n${all}")
endif()
if(NOT all MATCHES "${REGEX}")
  message(FATAL_ERROR "output does not match '${REGEX}':\n${all}")
endif()
message(STATUS "ok (status ${status}): ${all}")
