# Installing hetsim (included by the top CMakeLists.txt).
#
#   cmake --install BUILD [--prefix PREFIX]     (or DESTDIR=... for staging)
#
# lays out, with GNUInstallDirs:
#   BINDIR/hetsim                     the tool
#   LIBDIR/libhetsim.so.VERSION       the shared library (SONAME
#         libhetsim.so.SOVERSION) and libhetsim.a, the static one
#   INCLUDEDIR/hetsim/                the public headers and hetsim.h,
#         which includes them all (#include <hetsim/hetsim.h>)
#   DATADIR/hetsim/                   plots/*.gp, scenarios/ (with models/),
#         live/harness/: the data directory (base/hs_datadir.h)
#   LIBDIR/pkgconfig/hetsim.pc        pkg-config (relocatable)
#   LIBDIR/cmake/hetsim/              find_package(hetsim): hetsim::hetsim
#         (shared), hetsim::hetsim_static
#   MANDIR/man1/hetsim.1, hetsim-CMD.1 and
#   DATADIR/bash-completion/completions/hetsim, both written by the built
#         tool from its option tables (cmake/hs_gen_docs.cmake)
#   DOCDIR/                           copyright, LICENSE, README.md
#   HETSIM_PYTHON_DIR/hetsim/         the Python package (python/), with
#         _paths.py naming the installed libhetsim.so relative to itself;
#         default lib/python3/dist-packages, Debian's path for /usr

# ---- the public headers ------------------------------------------------
# What a program using the library needs: scenarios, the closed form, the
# replay and its traces, sweeps, advice, ingestion, profiling, plots,
# errors and units.  Internal headers (*_int.h, the YAML and JSON kits,
# HDF5 helpers, the collectives' own files) are not installed; no public
# header includes one (the install test checks it).
set(HS_PUBLIC_HEADERS
  base/hs_error.h base/hs_units.h base/hs_limits.h base/hs_progress.h
  base/hs_datadir.h
  model/hs_scenario.h model/hs_links.h model/hs_profile.h model/hs_closed.h
  model/hs_batchopt.h model/hs_mixopt.h model/hs_ringopt.h model/hs_rewrite.h
  model/hs_collective.h sim/hs_replay.h sim/hs_trace.h
  traces/hs_ingest.h output/hs_h5.h output/hs_chrome.h output/hs_plot.h
  output/hs_sweep_out.h
  live/hs_profile_run.h live/hs_netmeasure.h
  whatif/hs_sweep.h whatif/hs_advise.h whatif/hs_answer.h capi/hs_capi.h)

# hetsim.h: the version and every public header, in the order above
set(HS_UMBRELLA_INCLUDES "")
foreach(h ${HS_PUBLIC_HEADERS})
  get_filename_component(n ${h} NAME)
  string(APPEND HS_UMBRELLA_INCLUDES "#include \"${n}\"\n")
endforeach()
configure_file(${CMAKE_SOURCE_DIR}/cmake/hetsim.h.in
               ${CMAKE_BINARY_DIR}/include/hetsim/hetsim.h @ONLY)

# ---- the data directory -------------------------------------------------
# Where hs_datadir looks, relative to the installed program and library.
set(HS_PKGDATADIR ${CMAKE_INSTALL_DATADIR}/hetsim)
file(RELATIVE_PATH HS_DATADIR_FROM_BIN ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_FULL_DATADIR}/hetsim)
file(RELATIVE_PATH HS_DATADIR_FROM_LIB ${CMAKE_INSTALL_FULL_LIBDIR}
     ${CMAKE_INSTALL_FULL_DATADIR}/hetsim)
set_property(SOURCE ${CMAKE_SOURCE_DIR}/base/hs_datadir.c APPEND PROPERTY
  COMPILE_DEFINITIONS
  HS_DATADIR_FROM_BIN="${HS_DATADIR_FROM_BIN}"
  HS_DATADIR_FROM_LIB="${HS_DATADIR_FROM_LIB}"
  HS_DATADIR_FULL="${CMAKE_INSTALL_FULL_DATADIR}/hetsim")
# The build tree's data directory, BUILD/share/hetsim: links to the
# source's folders (not to the source tree itself, which may hold BUILD)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/share/hetsim/live)
foreach(d plots scenarios live/harness)
  if(NOT EXISTS ${CMAKE_BINARY_DIR}/share/hetsim/${d})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${d}
         ${CMAKE_BINARY_DIR}/share/hetsim/${d} SYMBOLIC)
  endif()
endforeach()

# ---- man pages and bash completion, from the option tables ---------------
set(HS_DOC_DIR ${CMAKE_BINARY_DIR}/doc)
if(NOT CMAKE_CROSSCOMPILING)
  add_custom_command(
    OUTPUT ${HS_DOC_DIR}/hetsim.stamp
    COMMAND ${CMAKE_COMMAND} -DHETSIM=$<TARGET_FILE:hetsim> -DOUT=${HS_DOC_DIR}
            -P ${CMAKE_SOURCE_DIR}/cmake/hs_gen_docs.cmake
    DEPENDS hetsim ${CMAKE_SOURCE_DIR}/cmake/hs_gen_docs.cmake
    COMMENT "Writing the man pages and the bash completion from hetsim's option tables")
  add_custom_target(hetsim_docs ALL DEPENDS ${HS_DOC_DIR}/hetsim.stamp)
  install(DIRECTORY ${HS_DOC_DIR}/man1 DESTINATION ${CMAKE_INSTALL_MANDIR})
  install(FILES ${HS_DOC_DIR}/completion/hetsim
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
endif()

# ---- install rules -------------------------------------------------------
install(TARGETS hetsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS hetsim_shared hetsim_core EXPORT hetsimTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
list(TRANSFORM HS_PUBLIC_HEADERS PREPEND ${CMAKE_SOURCE_DIR}/
     OUTPUT_VARIABLE HS_PUBLIC_HEADER_PATHS)
install(FILES ${HS_PUBLIC_HEADER_PATHS} ${CMAKE_BINARY_DIR}/include/hetsim/hetsim.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hetsim)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/plots/ DESTINATION ${HS_PKGDATADIR}/plots
        FILES_MATCHING PATTERN "*.gp")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/scenarios/
        DESTINATION ${HS_PKGDATADIR}/scenarios
        PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/live/harness/
        DESTINATION ${HS_PKGDATADIR}/live/harness
        PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/copyright ${CMAKE_SOURCE_DIR}/LICENSE
              ${CMAKE_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# the Python package: a ctypes layer over the shared library, found from
# the package's own place (_paths.py), so a moved tree works
set(HETSIM_PYTHON_DIR lib/python3/dist-packages CACHE STRING
    "where cmake --install puts the Python package hetsim (under the prefix)")
file(RELATIVE_PATH HS_PY_TO_LIB /prefix/${HETSIM_PYTHON_DIR}/hetsim
     /prefix/${CMAKE_INSTALL_LIBDIR})
file(WRITE ${CMAKE_BINARY_DIR}/python/_paths.py
     "# written by cmake/HetsimInstall.cmake: the installed shared library,\n"
     "# relative to this package\n"
     "LIBRARY = \"${HS_PY_TO_LIB}/libhetsim.so.${HETSIM_SOVERSION}\"\n")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/hetsim/
        DESTINATION ${HETSIM_PYTHON_DIR}/hetsim
        PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(FILES ${CMAKE_BINARY_DIR}/python/_paths.py
        DESTINATION ${HETSIM_PYTHON_DIR}/hetsim)

# pkg-config: prefix from the .pc file's own place, so a moved tree works
file(RELATIVE_PATH HS_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig
     ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" HS_PC_TO_PREFIX "${HS_PC_TO_PREFIX}")
set(HS_PC_LIBS_PRIVATE "")
foreach(l ${GSL_LIBRARY} ${GSL_CBLAS_LIBRARY} ${YAML_LINK_LIBRARIES}
          ${YAJL_LIBRARY} ${HDF5_C_LIBRARIES} ${ZLIB_LIBRARIES} ${HS_ISAL_LIBS} m
          ${CMAKE_DL_LIBS})
  if(IS_ABSOLUTE "${l}")
    string(APPEND HS_PC_LIBS_PRIVATE " ${l}")
  else()
    string(APPEND HS_PC_LIBS_PRIVATE " -l${l}")
  endif()
endforeach()
configure_file(${CMAKE_SOURCE_DIR}/cmake/hetsim.pc.in
               ${CMAKE_BINARY_DIR}/hetsim.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/hetsim.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# find_package(hetsim): the targets and a version file
include(CMakePackageConfigHelpers)
set(HS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hetsim)
install(EXPORT hetsimTargets NAMESPACE hetsim:: DESTINATION ${HS_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/hetsimConfig.cmake.in
  ${CMAKE_BINARY_DIR}/hetsimConfig.cmake INSTALL_DESTINATION ${HS_CMAKE_DIR}
  PATH_VARS HS_PKGDATADIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/hetsimConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/hetsimConfig.cmake
              ${CMAKE_BINARY_DIR}/hetsimConfigVersion.cmake
        DESTINATION ${HS_CMAKE_DIR})

# ---- tests of the installed tree, the docs and the package ----------------
# (not in a sanitizer build: what is installed and packaged is the plain
# build, and a program cannot link an instrumented libhetsim.a without
# the sanitizer's runtime)
if(BUILD_TESTING AND NOT HETSIM_SANITIZE)
  foreach(t install docs deb)
    add_test(NAME test_${t}
      COMMAND bash ${CMAKE_SOURCE_DIR}/packaging/tests/${t}.sh
              ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
    set_tests_properties(test_${t} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
  endforeach()
endif()
