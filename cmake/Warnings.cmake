# Project-wide compile options: warnings, optional sanitizers.
add_compile_options(-Wall -Wextra)
if(RINDLE_WERROR)
  add_compile_options(-Werror)
endif()
if(RINDLE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# rindle_test(NAME SOURCES... LIBS ...) — a GoogleTest executable registered with ctest.
function(rindle_test name)
  cmake_parse_arguments(RT "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${RT_SOURCES})
  target_link_libraries(${name} PRIVATE ${RT_LIBS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    RINDLE_FIXTURES_DIR="${RINDLE_FIXTURES_DIR}"
    RINDLE_SHARED_DIR="${RINDLE_SHARED_DIR}"
    RINDLE_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)
endfunction()
