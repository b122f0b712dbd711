# cmake/htc.cmake - a model as a build step: htc_add_model() runs htc on a
# model and exposes the generated header as a CMake library target.
#
#   include(/path/to/htc/cmake/htc.cmake)      # or: find_package(htc)
#   htc_add_model(kws                           # the library target's name
#       MODEL   ${CMAKE_SOURCE_DIR}/models/kws_ref_model.tflite
#       TARGET  cpu                             # a bundled target by name, or a .lua path
#       [NAME   kws]                            # C prefix: kws_run, KWS_ARENA_SIZE (default: the target's name)
#       [DEFINES pes=128 ...]                   # -D NAME=VALUE parameters of the target file
#       [OPTIONS --float-fallback ...]          # any other htc compile option
#       [CONFIG_HEADER hooks.h]                 # included before the implementation (HTC_PROFILE_BEGIN, ...)
#       [HEADER_ONLY]                           # an INTERFACE target: define NAME_IMPLEMENTATION yourself
#       [MEASURE]                               # stack and flash measured with the project's C compiler
#       [DEPENDS file ...])                     # more files whose change regenerates the header
#   target_link_libraries(firmware PRIVATE kws)  # then #include "kws.h" and call kws_run()
#
# By default the target is a static library of one generated source that
# defines NAME_IMPLEMENTATION and includes the header, so the firmware only
# includes the header. The header is regenerated when the model, the target
# file, every Lua file the target includes (htc --depfile; CMake 3.20 or
# later), htc, or the runtime and kernel files htc pastes into it change; it
# is written to ${CMAKE_CURRENT_BINARY_DIR}/htc/<NAME>/<NAME>.h. Each time,
# the build prints its figures: "htc: kws.h: arena 16000 B" and, with
# MEASURE (htc --stack-cc with the project's C compiler and flags), the
# stack per core, RAM and flash (code + constants). Cross builds work
# unchanged: htc runs on the build machine, the library is compiled by the
# toolchain of the project.
#
# HTC_EXECUTABLE (cache) is the htc program: found on PATH, next to this file
# in an installed tree (PREFIX/share/htc/cmake -> PREFIX/bin/htc), or at the
# top of a source tree; set it to override. HTC_DATADIR is htc's data
# directory (htc.h, kernels/, templates/, targets/).
include_guard(GLOBAL)
cmake_minimum_required(VERSION 3.13)

get_filename_component(HTC_DATADIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
find_program(HTC_EXECUTABLE htc
    HINTS "${HTC_DATADIR}/../../bin" "${HTC_DATADIR}"
    DOC "the htc compiler")

function(htc_add_model lib)
    cmake_parse_arguments(PARSE_ARGV 1 A "HEADER_ONLY;MEASURE"
        "MODEL;TARGET;NAME;CONFIG_HEADER" "DEFINES;OPTIONS;DEPENDS")
    if(A_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "htc_add_model(${lib}): unknown arguments: ${A_UNPARSED_ARGUMENTS}")
    endif()
    if(NOT A_MODEL OR NOT A_TARGET)
        message(FATAL_ERROR "htc_add_model(${lib}): MODEL and TARGET are required")
    endif()
    if(NOT HTC_EXECUTABLE)
        message(FATAL_ERROR "htc_add_model(${lib}): htc not found: set HTC_EXECUTABLE")
    endif()

    get_filename_component(model "${A_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${model}")
        message(FATAL_ERROR "htc_add_model(${lib}): model ${model} does not exist")
    endif()
    # TARGET: a path (relative to this directory), or a bundled target's name
    get_filename_component(target "${A_TARGET}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${target}" OR IS_DIRECTORY "${target}")
        set(target "${HTC_DATADIR}/targets/${A_TARGET}.lua")
        if(NOT EXISTS "${target}")
            message(FATAL_ERROR "htc_add_model(${lib}): target ${A_TARGET} is neither a file nor a bundled target (${HTC_DATADIR}/targets)")
        endif()
    endif()
    set(name "${A_NAME}")
    if(NOT name)
        set(name "${lib}")
    endif()
    if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
        message(FATAL_ERROR "htc_add_model(${lib}): NAME '${name}' is not a C identifier (pass NAME)")
    endif()

    set(dir "${CMAKE_CURRENT_BINARY_DIR}/htc/${name}")
    set(header "${dir}/${name}.h")
    set(args compile "${model}" -t "${target}" -o "${header}" --name "${name}")
    foreach(d IN LISTS A_DEFINES)
        list(APPEND args -D "${d}")
    endforeach()
    list(APPEND args ${A_OPTIONS})
    if(A_MEASURE)     # the stack and flash figures, by the compiler that builds the library
        string(TOUPPER "${CMAKE_BUILD_TYPE}" bt)
        string(STRIP "${CMAKE_C_COMPILER} ${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${bt}}" cc)
        string(REGEX REPLACE " +" " " cc "${cc}")
        list(APPEND args --stack-cc "${cc}")
    endif()
    set(depfile_args)
    if(NOT CMAKE_VERSION VERSION_LESS 3.20)   # add_custom_command(DEPFILE) with every generator
        list(APPEND args --depfile "${dir}/${name}.d")
        set(depfile_args DEPFILE "${dir}/${name}.d")
    endif()
    string(TOUPPER "${name}" upper)
    file(GLOB pasted "${HTC_DATADIR}/htc.h" "${HTC_DATADIR}/kernels/*.c"
                     "${HTC_DATADIR}/kernels/*.h" "${HTC_DATADIR}/templates/*/*")
    add_custom_command(OUTPUT "${header}"
        COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
        COMMAND "${HTC_EXECUTABLE}" ${args}
        COMMAND "${CMAKE_COMMAND}" -DHEADER=${header} -DNAME=${upper} -P "${HTC_DATADIR}/cmake/htc_figures.cmake"
        DEPENDS "${model}" "${target}" "${HTC_EXECUTABLE}" ${pasted} ${A_DEPENDS}
        ${depfile_args}
        COMMENT "htc: ${A_MODEL} on ${A_TARGET} -> ${name}.h"
        VERBATIM)
    add_custom_target(${lib}_header DEPENDS "${header}")

    if(A_HEADER_ONLY)
        add_library(${lib} INTERFACE)
        target_include_directories(${lib} INTERFACE "${dir}")
    else()
        set(src "${dir}/${name}_impl.c")
        set(body "/* generated by htc_add_model(${lib}): the implementation of ${name}.h */\n")
        if(A_CONFIG_HEADER)
            get_filename_component(cfg "${A_CONFIG_HEADER}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
            string(APPEND body "#include \"${cfg}\"\n")
        endif()
        string(APPEND body "#define ${upper}_IMPLEMENTATION\n#include \"${name}.h\"\n")
        file(GENERATE OUTPUT "${src}" CONTENT "${body}")
        set_source_files_properties("${src}" PROPERTIES OBJECT_DEPENDS "${header}")
        add_library(${lib} STATIC "${src}")
        target_include_directories(${lib} PUBLIC "${dir}")
    endif()
    add_dependencies(${lib} ${lib}_header)
    set_property(TARGET ${lib} PROPERTY HTC_HEADER "${header}")
endfunction()
