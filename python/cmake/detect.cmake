# Whether the Python module (python/) can be built: included by the top-level CMakeLists.txt, which
# adds python/ when CONTACTLAB_BUILD_PYTHON is on. The module is built against Debian's python3
# (/usr/bin/python3, where python3-numpy, python3-pytest and pybind11-dev install), not whatever
# python3 comes first on the PATH (pyenv, /usr/local): an extension only imports into the
# interpreter it was built for. Python3_EXECUTABLE chooses another.
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The python the module is built for")
endif()
# Python first: pybind11's config then uses CMake's FindPython3 (the one found here) instead of
# searching again on its own.
find_package(Python3 COMPONENTS Interpreter Development QUIET)
if(Python3_FOUND)
  find_package(pybind11 CONFIG QUIET)
endif()
if(Python3_FOUND AND pybind11_FOUND)
  set(contactlab_python_default ON)
else()
  set(contactlab_python_default OFF)
  if(NOT Python3_FOUND)
    set(contactlab_python_missing "Python 3 with its headers (Debian: python3-dev)")
  else()
    set(contactlab_python_missing "pybind11 (Debian: pybind11-dev)")
  endif()
endif()
option(CONTACTLAB_BUILD_PYTHON "Build the Python module `contactlab` (python/)"
       ${contactlab_python_default})
if(CONTACTLAB_BUILD_PYTHON AND NOT contactlab_python_default)
  message(FATAL_ERROR "contactlab: CONTACTLAB_BUILD_PYTHON is ON but ${contactlab_python_missing} "
                      "was not found; install it (tools/setup.sh test does) or configure with "
                      "-DCONTACTLAB_BUILD_PYTHON=OFF")
elseif(CONTACTLAB_BUILD_PYTHON)
  message(STATUS "contactlab: Python module for ${Python3_EXECUTABLE} (${Python3_VERSION}), "
                 "pybind11 ${pybind11_VERSION}")
else()
  if(contactlab_python_missing)
    message(STATUS "contactlab: not building the Python module: ${contactlab_python_missing} not "
                   "found (tools/setup.sh test installs it)")
  else()
    message(STATUS "contactlab: not building the Python module (CONTACTLAB_BUILD_PYTHON=OFF)")
  endif()
endif()
