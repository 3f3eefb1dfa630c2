// Symbol visibility for the SDK. Plugins are compiled with -fvisibility=hidden; every SDK interface
// and SDK error type is marked visible so that vtables, typeinfo and exceptions match across the
// host/plugin boundary.
#pragma once

#if defined(_WIN32)
#define CONTACTLAB_VISIBLE __declspec(dllexport)
#else
#define CONTACTLAB_VISIBLE __attribute__((visibility("default")))
#endif
