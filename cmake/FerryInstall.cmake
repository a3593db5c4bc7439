# make install: the library, the headers, a find_package(ferry) config, ferry.pc
# (libferry.so) and ferry-static.pc (libferry_static.a).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# libferry_static.a is C++ inside: a consumer that links it from C (a C-only
# CMake project, or cc with pkg-config) needs the C++ runtime after it. These
# are the C++ compiler's implicit libraries that the C compiler does not add
# (GCC: stdc++ m); threads and dl come with ferry_objects.
set(FERRY_CXX_RUNTIME_LIBS ${CMAKE_CXX_IMPLICIT_LINK_LIBRARIES})
if(CMAKE_C_IMPLICIT_LINK_LIBRARIES)
  list(REMOVE_ITEM FERRY_CXX_RUNTIME_LIBS ${CMAKE_C_IMPLICIT_LINK_LIBRARIES})
endif()
list(REMOVE_DUPLICATES FERRY_CXX_RUNTIME_LIBS)
find_package(Threads REQUIRED)  # CMAKE_THREAD_LIBS_INIT, for the .pc files
foreach(lib IN LISTS FERRY_CXX_RUNTIME_LIBS)
  target_link_libraries(ferry_static INTERFACE $<LINK_ONLY:${lib}>)
endforeach()

install(TARGETS ferry ferry_static ferry_objects EXPORT ferryTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ferry DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
install(EXPORT ferryTargets NAMESPACE ferry:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ferry)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ferryConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ferryConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ferry)
# Compatible versions as for the soname: the same major, and while 0.x the same minor.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(ferry_compatibility SameMinorVersion)
else()
  set(ferry_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ferryConfigVersion.cmake
  COMPATIBILITY ${ferry_compatibility})
install(FILES ${PROJECT_BINARY_DIR}/ferryConfig.cmake ${PROJECT_BINARY_DIR}/ferryConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ferry)

# pkg-config. Relocatable: the prefix is found from where the .pc file lies.
# FERRY_PC_LIBS_PRIVATE: what linking libferry_static.a needs after it.
file(RELATIVE_PATH FERRY_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" FERRY_PC_TO_PREFIX "${FERRY_PC_TO_PREFIX}")
set(libs "")
if(FERRY_HAVE_CUDA)
  get_filename_component(cudart_dir "${CUDA_cudart_static_LIBRARY}" DIRECTORY)
  list(APPEND libs "-L${cudart_dir}" -lcudart_static -lrt)
endif()
foreach(lib IN LISTS FERRY_CXX_RUNTIME_LIBS CMAKE_DL_LIBS)
  list(APPEND libs "-l${lib}")
endforeach()
if(CMAKE_THREAD_LIBS_INIT)
  list(APPEND libs ${CMAKE_THREAD_LIBS_INIT})
endif()
list(JOIN libs " " FERRY_PC_LIBS_PRIVATE)
foreach(pc ferry ferry-static)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
