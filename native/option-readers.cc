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

Napi::Float32Array ReadPcm(Napi::Env env, const Napi::Value& value) {
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
    throw Napi::TypeError::New(env, "pcm must be a Float32Array of 16 kHz mono samples");
  }
  Napi::Float32Array pcm = value.As<Napi::Float32Array>();
  if (pcm.ElementLength() == 0) throw Napi::RangeError::New(env, "pcm is empty");
  return pcm;
}

}  // namespace svc
