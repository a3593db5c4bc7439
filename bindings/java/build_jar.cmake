# Compiles every .java under SOURCES_DIRS into CLASSES, copies NATIVE_LIBS
# under CLASSES/NATIVE_DIR, and packs OUT_JAR. (A script, because SWIG's list
# of generated classes is known only after it ran.)
file(REMOVE_RECURSE ${CLASSES} ${CLASSES}/../native-stage)
file(MAKE_DIRECTORY ${CLASSES})
set(sources "")
foreach(dir IN LISTS SOURCES_DIRS)
  file(GLOB_RECURSE found ${dir}/*.java)
  list(APPEND sources ${found})
endforeach()
execute_process(COMMAND ${JAVAC} --release 11 -Xlint:all,-cast,-serial -d ${CLASSES} ${sources}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "javac failed")
endif()
# Class files only, without the native code: java.missing_native_library uses this copy.
file(MAKE_DIRECTORY ${CLASSES}/${NATIVE_DIR})
foreach(lib IN LISTS NATIVE_LIBS)
  # libferry's path is its soname link (TARGET_SONAME_FILE), the name the loader asks for.
  get_filename_component(name ${lib} NAME)
  configure_file(${lib} ${CLASSES}/../native-stage/${NATIVE_DIR}/${name} COPYONLY)
endforeach()
execute_process(COMMAND ${JAR} cf ${OUT_JAR} -C ${CLASSES} . -C ${CLASSES}/../native-stage .
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "jar failed")
endif()
