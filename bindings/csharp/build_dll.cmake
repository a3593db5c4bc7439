# Compiles SWIG's generated .cs files (known only after SWIG ran) and EXTRA
# into the assembly OUT with mcs.
file(GLOB generated ${GEN_DIR}/*.cs)
set(define_args "")
foreach(d IN LISTS DEFINES)
  list(APPEND define_args -define:${d})
endforeach()
execute_process(COMMAND ${MCS} -target:library -unsafe -nowarn:1591,414 -out:${OUT} ${define_args}
  ${generated} ${EXTRA} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mcs failed")
endif()
