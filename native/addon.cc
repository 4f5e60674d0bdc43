// Module entry: registers the per-environment data and the exported functions. Every export is
// either a synchronous query or an AsyncWorker that resolves a Promise.
#include <atomic>
#include <mutex>
#include <cstdio>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <napi.h>

#include "addon-data.h"
#include "detect-language-worker.h"
#include "detect-speech-worker.h"
#include "diarize-worker.h"
#include "ggml-backend.h"
#include "load-model-worker.h"
#include "load-vad-model-worker.h"
#include "model-registry.h"
#include "transcribe-worker.h"
#include "vad-model-kind.h"
#include "vad-model-registry.h"
#include "whisper-model-kind.h"
#include "whisper.h"

namespace svc {
namespace {

// whisper.cpp and ggml log to stderr by default; a service keeps them quiet unless asked.
std::atomic<bool> g_logging{false};

void ForwardLog(ggml_log_level level, const char* text, void*) {
  if (g_logging.load(std::memory_order_relaxed)) fputs(text, stderr);
}

Napi::Value SetLogging(const Napi::CallbackInfo& info) {
  g_logging = info[0].ToBoolean().Value();
  return info.Env().Undefined();
}

Napi::Value ModelStats(const Napi::CallbackInfo& info) {
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("loads", static_cast<double>(ModelRegistry::LoadCount()));
  out.Set("resident", static_cast<double>(ModelRegistry::ResidentCount()));
  out.Set("references", static_cast<double>(ModelRegistry::References().load()));
  return out;
}

// keepStates(model, limit): the model's idle decoding states are at most `limit` from now on (the
// least recently kept beyond it freed). The engine decides the limit; the pool is shared by every
// holder of the model in the process.
Napi::Value KeepStates(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<LoadedModel> model = ModelHandle<LoadedModel>::ModelFrom(info[0]);
  if (!info[1].IsNumber()) throw Napi::TypeError::New(env, "limit must be a number");
  const double limit = info[1].As<Napi::Number>().DoubleValue();
  if (!(limit >= 0 && limit <= 1024) || limit != static_cast<double>(static_cast<int64_t>(limit))) {
    throw Napi::RangeError::New(env, "limit must be an integer from 0 to 1024");
  }
  model->states().SetLimit(static_cast<size_t>(limit));
  return env.Undefined();
}

// releaseStates(model): frees the model's idle decoding states now; how many. glibc keeps freed
// memory in its arenas (a state's buffers are allocated on worker threads, below the mmap threshold once
// it has grown): malloc_trim hands the pages back, so an idle process's RSS goes down, not only its heap.
Napi::Value ReleaseStates(const Napi::CallbackInfo& info) {
  std::shared_ptr<LoadedModel> model = ModelHandle<LoadedModel>::ModelFrom(info[0]);
  const size_t released = model->states().Release();
#ifdef __GLIBC__
  if (released > 0) malloc_trim(0);
#endif
  return Napi::Number::New(info.Env(), static_cast<double>(released));
}

Napi::Value VadStats(const Napi::CallbackInfo& info) {
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("loads", static_cast<double>(VadModelRegistry::LoadCount()));
  out.Set("resident", static_cast<double>(VadModelRegistry::ResidentCount()));
  out.Set("contexts", static_cast<double>(VadModelRegistry::ContextCount()));
  out.Set("references", static_cast<double>(VadModelRegistry::References().load()));
  return out;
}

Napi::Value SystemInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("whisperVersion", SVC_WHISPER_VERSION);
  out.Set("features", whisper_print_system_info());
  const size_t count = ggml_backend_dev_count();
  Napi::Array devices = Napi::Array::New(env, count);
  bool gpu = false;
  for (size_t i = 0; i < count; i++) {
    ggml_backend_dev_t dev = ggml_backend_dev_get(i);
    devices.Set(static_cast<uint32_t>(i), ggml_backend_dev_name(dev));
    if (ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_GPU) gpu = true;
  }
  out.Set("devices", devices);
  out.Set("gpu", gpu);
  return out;
}

Napi::Value Languages(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int max = whisper_lang_max_id();
  Napi::Array out = Napi::Array::New(env, max + 1);
  for (int i = 0; i <= max; i++) out.Set(static_cast<uint32_t>(i), whisper_lang_str(i));
  return out;
}

}  // namespace
}  // namespace svc

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) {
  using namespace svc;
  static std::once_flag logOnce;
  std::call_once(logOnce, [] { whisper_log_set(ForwardLog, nullptr); });
  env.SetInstanceData(new AddonData());
  ModelHandle<LoadedModel>::Init(env);
  ModelHandle<VadModel>::Init(env);
  exports.Set("loadModel", Napi::Function::New(env, LoadModelWorker::Start, "loadModel"));
  exports.Set("loadModelSync", Napi::Function::New(env, LoadModelWorker::LoadSync, "loadModelSync"));
  exports.Set("transcribe", Napi::Function::New(env, TranscribeWorker::Start, "transcribe"));
  exports.Set("detectLanguage", Napi::Function::New(env, DetectLanguageWorker::Start, "detectLanguage"));
  exports.Set("loadVadModel", Napi::Function::New(env, LoadVadModelWorker::Start, "loadVadModel"));
  exports.Set("loadVadModelSync", Napi::Function::New(env, LoadVadModelWorker::LoadSync, "loadVadModelSync"));
  exports.Set("detectSpeech", Napi::Function::New(env, DetectSpeechWorker::Start, "detectSpeech"));
  exports.Set("diarize", Napi::Function::New(env, DiarizeWorker::Start, "diarize"));
  exports.Set("speakerFeatures", Napi::Function::New(env, SpeakerFeaturesWorker::Start, "speakerFeatures"));
  exports.Set("keepStates", Napi::Function::New(env, KeepStates, "keepStates"));
  exports.Set("releaseStates", Napi::Function::New(env, ReleaseStates, "releaseStates"));
  exports.Set("vadStats", Napi::Function::New(env, VadStats, "vadStats"));
  exports.Set("modelStats", Napi::Function::New(env, ModelStats, "modelStats"));
  exports.Set("systemInfo", Napi::Function::New(env, SystemInfo, "systemInfo"));
  exports.Set("setLogging", Napi::Function::New(env, SetLogging, "setLogging"));
  exports.Set("languages", Napi::Function::New(env, Languages, "languages"));
  return exports;
}

NODE_API_MODULE(svc_stt, InitAddon)
