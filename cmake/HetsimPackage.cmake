# cpack -G DEB (in the build folder, after the build): a Debian package of
# everything `cmake --install` installs, under /usr.  Its Depends are
# computed by dpkg-shlibdeps (package dpkg-dev) from the libraries the tool
# and libhetsim link; gnuplot (for `hetsim plot`) is recommended, and what
# `hetsim profile` and `measure-bw` run is suggested.  Configure with
# -DCMAKE_INSTALL_PREFIX=/usr for Debian's multiarch library folder
# (lib/<triplet>); with the default prefix the package's libraries go to
# /usr/lib, which works as well.  packaging/tests/deb.sh tests it.
set(CPACK_PACKAGE_NAME hetsim)
set(CPACK_PACKAGE_VENDOR "the hetsim authors")
set(CPACK_PACKAGE_CONTACT "the hetsim authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "training-time prediction on heterogeneous ring clusters")
set(CPACK_PACKAGE_DESCRIPTION
"hetsim predicts how long a neural network takes to train, data-parallel
with ring all-reduce, on a heterogeneous cluster (several device types in
one ring), with a closed-form model per device and a discrete-event replay
of every step along the ring.  This package holds the hetsim tool, the
libhetsim library (shared and static) with its headers, pkg-config and
CMake files, the gnuplot scripts, example scenarios, the profiling
harness, man pages and bash completion.")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# stripped, as Debian ships programs: no build paths in the binaries
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox | gnuplot")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3, python3-torch, iperf3, iproute2")
# the copyright file goes to /usr/share/doc/hetsim/ with the rest of DOCDIR
# (`cpack --config CPackSourceConfig.cmake`: the sources, less build trees)
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/" "__pycache__")
include(CPack)
