#include "option-readers.h"

#include <cmath>

namespace svc {

bool HasOption(const Napi::Object& o, const char* key) {
  return o.Has(key) && !o.Get(key).IsUndefined() && !o.Get(key).IsNull();
}

double NumberOption(Napi::Env env, const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsNumber() || !std::isfinite(v.As<Napi::Number>().DoubleValue())) {
    throw Napi::TypeError::New(env, std::string("option ") + key + " must be a finite number");
  }
  return v.As<Napi::Number>().DoubleValue();
}

double NumberOptionInRange(Napi::Env env, const Napi::Object& o, const char* key, double min, double max) {
  const double d = NumberOption(env, o, key);
  if (d < min || d > max) throw Napi::RangeError::New(env, std::string("option ") + key + " is out of range");
  return d;
}

int IntegerOption(Napi::Env env, const Napi::Object& o, const char* key, int min, int max) {
  double d = NumberOption(env, o, key);
  if (d != std::floor(d) || d < min || d > max) {
    throw Napi::RangeError::New(env, std::string("option ") + key + " must be an integer in range");
  }
  return static_cast<int>(d);
}

bool BoolOption(Napi::Env env, const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsBoolean()) throw Napi::TypeError::New(env, std::string("option ") + key + " must be a boolean");
  return v.As<Napi::Boolean>().Value();
}

std::string StringOption(Napi::Env env, const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsString()) throw Napi::TypeError::New(env, std::string("option ") + key + " must be a string");
  return v.As<Napi::String>().Utf8Value();
}

std::string ReadString(Napi::Env env, const Napi::Value& value, const char* what) {
  if (!value.IsString()) throw Napi::TypeError::New(env, std::string(what) + " must be a string");
  return value.As<Napi::String>().Utf8Value();
}

Napi::Object ReadOptions(Napi::Env env, const Napi::Value& value, const char* what) {
  if (value.IsUndefined() || value.IsNull()) return Napi::Object::New(env);
  if (!value.IsObject() || value.IsArray()) throw Napi::TypeError::New(env, std::string(what) + " must be an object");
  return value.As<Napi::Object>();
}

std::vector<TimeRange> ReadTimeRanges(Napi::Env env, const Napi::Value& value, const char* what) {
  if (!value.IsArray()) throw Napi::TypeError::New(env, std::string(what) + " must be an array of {start, end}");
  const Napi::Array array = value.As<Napi::Array>();
  std::vector<TimeRange> ranges;
  ranges.reserve(array.Length());
  for (uint32_t i = 0; i < array.Length(); i++) {
    const Napi::Value item = array.Get(i);
    if (!item.IsObject()) throw Napi::TypeError::New(env, std::string(what) + " must be an array of {start, end}");
    const Napi::Object o = item.As<Napi::Object>();
    const TimeRange range{NumberOption(env, o, "start"), NumberOption(env, o, "end")};
    if (range.start < 0 || range.end < range.start) throw Napi::RangeError::New(env, std::string(what) + ": each range needs 0 <= start <= end");
    if (!ranges.empty() && range.start < ranges.back().end) throw Napi::RangeError::New(env, std::string(what) + " must be in time order without overlap");
    ranges.push_back(range);
  }
  return ranges;
}

Napi::TypedArray TypedArrayOption(Napi::Env env, const Napi::Object& o, const char* key, napi_typedarray_type type, const char* typeName) {
  const Napi::Value value = o.Get(key);
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != type) {
    throw Napi::TypeError::New(env, std::string(key) + " must be " + typeName);
  }
  return value.As<Napi::TypedArray>();
}

Napi::Float32Array ReadPcm(Napi::Env env, const Napi::Value& value) {
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
    throw Napi::TypeError::New(env, "pcm must be a Float32Array of 16 kHz mono samples");
  }
  Napi::Float32Array pcm = value.As<Napi::Float32Array>();
  if (pcm.ElementLength() == 0) throw Napi::RangeError::New(env, "pcm is empty");
  return pcm;
}

}  // namespace svc
