// Error types that may cross the host/plugin boundary (they are visible, so typeinfo matches).
#pragma once

#include <stdexcept>
#include <string>

#include "contactlab/export.hpp"

namespace contactlab {

/// Base of every contactlab error.
class CONTACTLAB_VISIBLE Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad user input: a file, YAML, schema or command-line problem (CLI exit code 2).
class CONTACTLAB_VISIBLE InputError : public Error {
 public:
  using Error::Error;
};

/// A plugin library could not be loaded or was refused (CLI exit code 3).
class CONTACTLAB_VISIBLE PluginError : public Error {
 public:
  using Error::Error;
};

/// The simulation could not continue: non-finite state, integrator failure (CLI exit code 4).
class CONTACTLAB_VISIBLE SimulationError : public Error {
 public:
  using Error::Error;
};

}  // namespace contactlab
