# cmake/htcConfig.cmake - find_package(htc): defines htc_add_model() (see
# htc.cmake beside this file). Installed by `make install` in
# PREFIX/share/htc/cmake; point CMAKE_PREFIX_PATH or htc_DIR at it.
include("${CMAKE_CURRENT_LIST_DIR}/htc.cmake")
include(FindPackageHandleStandardArgs)
set(htc_CONFIG "${CMAKE_CURRENT_LIST_FILE}")
find_package_handle_standard_args(htc CONFIG_MODE REQUIRED_VARS HTC_EXECUTABLE)
