// SDK ABI version and the build fingerprint: the settings that must agree between the host and a
// plugin for the structs and interfaces in this SDK to mean the same thing on both sides.
#pragma once

#include <Eigen/Core>

/// Incremented whenever a struct or interface in sdk/include/contactlab changes layout or meaning.
/// (Overridable only so that the loader's tests can build a deliberately mismatched fixture.)
#ifndef CONTACTLAB_SDK_ABI_VERSION
#define CONTACTLAB_SDK_ABI_VERSION 11u
#endif

#define CONTACTLAB_STRINGIFY_DETAIL(x) #x
#define CONTACTLAB_STRINGIFY(x) CONTACTLAB_STRINGIFY_DETAIL(x)

#if defined(EIGEN_DONT_VECTORIZE)
#define CONTACTLAB_EIGEN_VECTORIZE_FLAG "0"
#else
#define CONTACTLAB_EIGEN_VECTORIZE_FLAG "1"
#endif

/// Items are `key=value` separated by ';' so that the loader can name each one that differs.
#define CONTACTLAB_BUILD_FINGERPRINT \
  "eigen=" CONTACTLAB_STRINGIFY(EIGEN_WORLD_VERSION) "." CONTACTLAB_STRINGIFY(             \
      EIGEN_MAJOR_VERSION) "." CONTACTLAB_STRINGIFY(EIGEN_MINOR_VERSION)                   \
      ";eigen_max_align_bytes=" CONTACTLAB_STRINGIFY(                                      \
          EIGEN_MAX_ALIGN_BYTES) ";eigen_vectorize=" CONTACTLAB_EIGEN_VECTORIZE_FLAG       \
      ";glibcxx_use_cxx11_abi=" CONTACTLAB_STRINGIFY(_GLIBCXX_USE_CXX11_ABI) ";scalar=double"

namespace contactlab {
/// Version of contactlab itself (host and first-party plugins).
inline constexpr const char* version_string = "0.1.0";
}  // namespace contactlab
