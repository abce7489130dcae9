# Runs an OpenMP program that nobody here wrote, unchanged, once on libgomp
# and once on weft's runtime (LD_PRELOAD=libweft-omp.so), and checks that
#  * both runs succeed and print the same standard output (line by line, or
#    as sorted lines with -DSORTED=ON where the program prints from a
#    region's members in no fixed order);
#  * the weft run's dynamic linker bound the program's OpenMP entry point
#    (-DBINDS=GOMP_parallel ...) to libweft-omp.so (LD_DEBUG=bindings): a
#    lazily bound library (OpenBLAS) reports a binding only when it calls
#    the entry point, an eagerly bound program (msgmerge) at start.
# -DMSGMERGE_INPUTS=<dir> first writes def.po and ref.pot there: 1500
# translated messages and 750 new ones that differ from them by a word,
# so msgmerge's fuzzy search (its OpenMP loop) runs over all of them.
#
#   cmake -DCOMMAND=<program;args> -DWEFT_OMP=<libweft-omp.so> -DBINDS=<symbols>
#         [-DSORTED=ON] [-DENV=<VAR=value;...>] [-DMSGMERGE_INPUTS=<dir>] -P foreign.cmake
cmake_minimum_required(VERSION 3.25)

if(MSGMERGE_INPUTS)
  set(words alpha beta gamma delta file directory cannot open read write error option invalid missing argument)
  set(header "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\n")
  set(def "${header}")
  set(ref "${header}")
  foreach(i RANGE 1 1500)
    math(EXPR a "${i} % 15")
    math(EXPR b "(${i} * 7) % 15")
    math(EXPR c "(${i} * 11) % 15")
    list(GET words ${a} wa)
    list(GET words ${b} wb)
    list(GET words ${c} wc)
    string(APPEND def "msgid \"${wa} ${wb} ${wc} number ${i}\"\nmsgstr \"${wc} ${wb} ${wa} Nummer ${i}\"\n\n")
    math(EXPR odd "${i} % 2")
    if(odd)
      string(APPEND ref "msgid \"${wa} ${wb} ${wc} entry ${i}\"\nmsgstr \"\"\n\n")
    endif()
  endforeach()
  file(WRITE ${MSGMERGE_INPUTS}/def.po "${def}")
  file(WRITE ${MSGMERGE_INPUTS}/ref.pot "${ref}")
endif()

# libgomp: the program as it is (a preload from the caller's environment removed).
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_PRELOAD ${ENV} ${COMMAND}
                RESULT_VARIABLE gomp_status OUTPUT_VARIABLE gomp_out ERROR_VARIABLE gomp_err TIMEOUT 120)
if(NOT gomp_status EQUAL 0)
  message(FATAL_ERROR "on libgomp: exit status '${gomp_status}':\n${gomp_out}${gomp_err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${WEFT_OMP} LD_DEBUG=bindings ${ENV} ${COMMAND}
                RESULT_VARIABLE weft_status OUTPUT_VARIABLE weft_out ERROR_VARIABLE weft_err TIMEOUT 120)
if(NOT weft_status EQUAL 0)
  string(REGEX REPLACE "[^\n]*binding file[^\n]*\n" "" errors "${weft_err}")
  message(FATAL_ERROR "on weft: exit status '${weft_status}':\n${weft_out}${errors}")
endif()

if(SORTED)
  foreach(run gomp weft)
    string(REPLACE "\n" ";" lines "${${run}_out}")
    list(SORT lines)
    set(${run}_out "${lines}")
  endforeach()
endif()
if(NOT gomp_out STREQUAL weft_out)
  message(FATAL_ERROR "the outputs differ\n--- libgomp:\n${gomp_out}\n--- weft:\n${weft_out}")
endif()
string(LENGTH "${gomp_out}" length)
if(length EQUAL 0)
  message(FATAL_ERROR "the program printed nothing: nothing to compare")
endif()

foreach(symbol IN LISTS BINDS)
  if(NOT weft_err MATCHES "to [^\n]*libweft-omp\\.so[^\n]*normal symbol `${symbol}'")
    message(FATAL_ERROR "${symbol} was not bound to libweft-omp.so (LD_DEBUG=bindings):\n${weft_err}")
  endif()
endforeach()
message(STATUS "same output on libgomp and on weft (${length} bytes); ${BINDS} bound to libweft-omp.so")
