# The install tree: the layers' libraries and headers (weft_layer() installs
# each layer's include/), the umbrella header, and the find_package(weft)
# package (weftConfig.cmake, its version file, the dependencies it finds).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS weft weft_apps weft_sync weft_runtime weft_sched
        EXPORT weftTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/weft/weft.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/weft)
install(EXPORT weftTargets NAMESPACE weft:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/weft)
# The optional component mpi (weft::mpi, its headers): its own export set, so
# that only find_package(weft COMPONENTS mpi) looks for MPI.
if(TARGET weft_mpi)
  install(TARGETS weft_mpi EXPORT weftMpiTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(DIRECTORY mpi/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT weftMpiTargets NAMESPACE weft:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/weft)
endif()
configure_package_config_file(cmake/weftConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/weftConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/weft)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/weftConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/weftConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/weftConfigVersion.cmake
              cmake/WeftDependencies.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/weft)
