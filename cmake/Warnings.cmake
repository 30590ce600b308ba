# Project-wide compile options: warnings, optional sanitizers.
add_compile_options(-Wall -Wextra)
if(RINDLE_WERROR)
  add_compile_options(-Werror)
endif()
if(RINDLE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# The test main every test binary links instead of GTest::gtest_main: each test runs with its
# own fresh TEST_TMPDIR (base/testing/test_main.cc), so parallel tests never share a file.
add_library(rindle_test_main STATIC ${CMAKE_SOURCE_DIR}/base/testing/test_main.cc)
target_link_libraries(rindle_test_main PUBLIC GTest::gtest)

# rindle_test(NAME SOURCES... LIBS ...) — a GoogleTest executable registered with ctest.
function(rindle_test name)
  cmake_parse_arguments(RT "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${RT_SOURCES})
  target_link_libraries(${name} PRIVATE ${RT_LIBS} GTest::gtest GTest::gmock rindle_test_main)
  target_compile_definitions(${name} PRIVATE
    RINDLE_FIXTURES_DIR="${RINDLE_FIXTURES_DIR}"
    RINDLE_SHARED_DIR="${RINDLE_SHARED_DIR}"
    RINDLE_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)
endfunction()
