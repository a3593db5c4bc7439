# Decides whether this build has the CUDA backend. FERRY_CUDA=OFF, or no
# toolkit found, gives a CPU-only build of the same API.
set(FERRY_HAVE_CUDA OFF)
if(FERRY_CUDA)
  include(CheckLanguage)
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Machine code (SASS) for each GPU generation in service, so that none
    # JIT-compiles the kernels at load, and the PTX of the newest, which a GPU
    # newer than all of them compiles at load. CUDA 13 builds for sm_75 and up.
    # A cubin also runs on the later minor versions of its major (sm_100 code
    # on a B300, sm_103):
    #   75  T4, RTX 20               80  A100, A30
    #   86  A10, A40, RTX 30         89  L4, L40S, RTX 40
    #   90  H100, H200, GH200        100 B200, GB200, B300
    #   120 RTX 50, RTX PRO Blackwell, DGX Spark (sm_121)
    # Jetson Thor (sm_110) runs none of these: add 110-real to build for it.
    # -DCMAKE_CUDA_ARCHITECTURES=... or the environment's CUDAARCHS replace the
    # list; the test build.cuda_archs checks libferry's fat binary against it.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND "$ENV{CUDAARCHS}" STREQUAL "")
      set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90-real;100-real;120-real;120-virtual"
          CACHE STRING "CUDA architectures")
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    # The runtime is linked statically: the driver is the only NVIDIA run-time dependency.
    set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
    find_package(CUDAToolkit REQUIRED)
    set(FERRY_HAVE_CUDA ON)
  else()
    message(STATUS "ferry: no CUDA compiler found, building the CPU backend only")
  endif()
endif()
message(STATUS "ferry: CUDA backend ${FERRY_HAVE_CUDA}")
