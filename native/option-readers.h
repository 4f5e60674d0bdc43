// Readers for the fields of a JavaScript options object, shared by every operation that takes one, so
// a malformed option fails the same way everywhere: a TypeError for the wrong kind of value, a
// RangeError for a value out of range. They read; they never supply defaults (TypeScript decides those).
#pragma once

#include <string>
#include <vector>
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

/** A string argument (not an option): `what` names it in the error. */
std::string ReadString(Napi::Env env, const Napi::Value& value, const char* what);

/** An optional options object: undefined or null reads as empty, anything else but an object is a TypeError. */
Napi::Object ReadOptions(Napi::Env env, const Napi::Value& value, const char* what);

struct TimeRange {
  double start;
  double end;
};

/** An array of {start, end} in seconds: finite, 0 <= start <= end, in time order without overlap. */
std::vector<TimeRange> ReadTimeRanges(Napi::Env env, const Napi::Value& value, const char* what);

/** A typed array of the given element type (`typeName` names it in the error, e.g. "a Float32Array"). */
Napi::TypedArray TypedArrayOption(Napi::Env env, const Napi::Object& o, const char* key, napi_typedarray_type type, const char* typeName);

/** A non-empty Float32Array of 16 kHz mono samples. */
Napi::Float32Array ReadPcm(Napi::Env env, const Napi::Value& value);

}  // namespace svc
