// Readers for the fields of a JavaScript options object, shared by every operation that takes one, so
// a malformed option fails the same way everywhere: a TypeError for the wrong kind of value, a
// RangeError for a value out of range. They read; they never supply defaults (TypeScript decides those).
#pragma once

#include <string>
#include <napi.h>

namespace svc {

/** The key is present with a value other than undefined or null. */
bool HasOption(const Napi::Object& o, const char* key);
double NumberOption(Napi::Env env, const Napi::Object& o, const char* key);
/** A finite number within [min, max]. */
double NumberOptionInRange(Napi::Env env, const Napi::Object& o, const char* key, double min, double max);
int IntegerOption(Napi::Env env, const Napi::Object& o, const char* key, int min, int max);
bool BoolOption(Napi::Env env, const Napi::Object& o, const char* key);
std::string StringOption(Napi::Env env, const Napi::Object& o, const char* key);

/** A non-empty Float32Array of 16 kHz mono samples. */
Napi::Float32Array ReadPcm(Napi::Env env, const Napi::Value& value);

}  // namespace svc
