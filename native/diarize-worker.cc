#include "diarize-worker.h"

#include "abort-error.h"
#include "option-readers.h"
#include "speakers/speaker-embedder.h"
#include "stopwatch.h"

namespace svc {

Napi::Value DiarizeWorker::Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Float32Array pcm = ReadPcm(env, info[0]);
  std::vector<speakers::SpeechRegion> regions;
  for (const TimeRange& range : ReadTimeRanges(env, info[1], "regions")) regions.push_back({range.start, range.end});
  const Napi::Object options = ReadOptions(env, info[2], "diarization options");
  speakers::DiarizationSettings settings;
  settings.maxVoices = IntegerOption(env, options, "maxVoices", 1, 8);
  auto* worker = new DiarizeWorker(env, pcm, std::move(regions), settings, info[3]);
  Napi::Promise promise = worker->deferred_.Promise();
  worker->Queue();
  return promise;
}

DiarizeWorker::DiarizeWorker(Napi::Env env, Napi::Float32Array pcm, std::vector<speakers::SpeechRegion> regions,
                             speakers::DiarizationSettings settings, const Napi::Value& control)
    : SafeAsyncWorker(env, "svc-stt:diarize"),
      deferred_(Napi::Promise::Deferred::New(env)),
      pcmRef_(Napi::Persistent(pcm.As<Napi::Object>())),
      samples_(pcm.Data()),
      sampleCount_(pcm.ElementLength()),
      regions_(std::move(regions)),
      settings_(settings),
      abort_(env, control) {}

void DiarizeWorker::Execute() {
  const double start = NowMs();
  const speakers::CepstralStatisticsEmbedder embedder;
  auto aborted = [](void* control) { return static_cast<AbortControl*>(control)->Aborted(); };
  if (abort_.Aborted()) {
    aborted_ = true;
    SetError(kAbortMessage);
    return;
  }
  result_ = speakers::Diarize(samples_, sampleCount_, regions_, settings_, embedder, aborted, &abort_);
  if (abort_.Aborted()) {
    aborted_ = true;
    SetError(kAbortMessage);
    return;
  }
  totalMs_ = NowMs() - start;
}

void DiarizeWorker::OnOK() {
  Napi::Env env = Env();
  Napi::HandleScope scope(env);
  Napi::Object out = Napi::Object::New(env);
  Napi::Array turns = Napi::Array::New(env, result_.turns.size());
  for (size_t i = 0; i < result_.turns.size(); i++) {
    Napi::Object turn = Napi::Object::New(env);
    turn.Set("start", result_.turns[i].start);
    turn.Set("end", result_.turns[i].end);
    turn.Set("speaker", result_.turns[i].speaker);
    turns.Set(static_cast<uint32_t>(i), turn);
  }
  out.Set("turns", turns);
  out.Set("voices", result_.voices);
  out.Set("segments", static_cast<double>(result_.segments));
  Napi::Object timings = Napi::Object::New(env);
  timings.Set("totalMs", totalMs_);
  out.Set("timings", timings);
  deferred_.Resolve(out);
}

void DiarizeWorker::OnError(const Napi::Error& error) {
  deferred_.Reject(aborted_ ? MakeAbortError(Env()) : error.Value());
}

}  // namespace svc
