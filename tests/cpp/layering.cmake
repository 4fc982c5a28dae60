# The libraries' layering, checked by the build itself: each probe includes a header of a library its library does
# not link, and must fail to compile with "No such file". The last probe includes one it does link, and must compile
# (so the others fail for the right reason). Included from CMakeLists.txt after the libraries are declared.
set(ARCSCOPE_LAYERING_PROBES
  "core:kernels/quant.h" "kernels:formats/model_file.h" "formats:model/decoder.h" "model:analysis/heads.h"
  "tokenizer:model/decoder.h" "article:kernels/quant.h" "diagnostics:formats/convert.h")
foreach(probe IN LISTS ARCSCOPE_LAYERING_PROBES ITEMS "analysis:core/error.h")
  string(REPLACE ":" ";" parts ${probe})
  list(GET parts 0 library)
  list(GET parts 1 header)
  string(MAKE_C_IDENTIFIER "${library}_includes_${header}" name)
  set(source ${CMAKE_BINARY_DIR}/layering/${name}.cpp)
  file(WRITE ${source} "#include \"arcscope/${header}\"\n")
  add_library(layering_${name} OBJECT EXCLUDE_FROM_ALL ${source})
  target_link_libraries(layering_${name} PRIVATE arcscope_${library})
  add_test(NAME Layering.${name} COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target layering_${name})
  if(probe IN_LIST ARCSCOPE_LAYERING_PROBES)
    set_tests_properties(Layering.${name} PROPERTIES PASS_REGULAR_EXPRESSION "arcscope/${header}: No such file")
  endif()
endforeach()
