#include "diarize-worker.h"

#include <cstring>

#include "option-readers.h"
#include "speakers/speaker-embedder.h"
#include "stopwatch.h"

namespace svc {

namespace {

std::vector<speakers::SpeechRegion> ReadRegions(Napi::Env env, const Napi::Value& value) {
  std::vector<speakers::SpeechRegion> regions;
  for (const TimeRange& range : ReadTimeRanges(env, value, "regions")) regions.push_back({range.start, range.end});
  return regions;
}

bool IsAborted(void* control) { return static_cast<AbortControl*>(control)->Aborted(); }

}  // namespace

DiarizationInput DiarizationInput::Read(Napi::Env env, const Napi::Value& value) {
  DiarizationInput input;
  if (value.IsTypedArray()) {
    input.pcm = PinnedPcm::Read(env, value);
    return input;
  }
  if (!value.IsObject() || value.IsArray()) {
    throw Napi::TypeError::New(env, "the input must be PCM (a Float32Array) or speaker features ({frames, values, audible, pitch})");
  }
  // {frames, values: Float32Array(frames * 19), audible: Uint8Array(frames), pitch: Float32Array(frames)}, as speakerFeatures returns them.
  const Napi::Object o = value.As<Napi::Object>();
  PinnedFeatures& features = input.features;
  const double frames = NumberOptionInRange(env, o, "frames", 0, 1e9);
  if (frames != static_cast<double>(static_cast<size_t>(frames))) throw Napi::RangeError::New(env, "frames must be an integer");
  features.frames = static_cast<size_t>(frames);
  Napi::TypedArray values = TypedArrayOption(env, o, "values", napi_float32_array, "a Float32Array");
  Napi::TypedArray audible = TypedArrayOption(env, o, "audible", napi_uint8_array, "a Uint8Array");
  Napi::TypedArray pitch = TypedArrayOption(env, o, "pitch", napi_float32_array, "a Float32Array");
  if (values.ElementLength() != features.frames * speakers::kCepstra) {
    throw Napi::RangeError::New(env, "values must hold frames x " + std::to_string(speakers::kCepstra) + " numbers");
  }
  if (audible.ElementLength() != features.frames) throw Napi::RangeError::New(env, "audible must hold one flag per frame");
  if (pitch.ElementLength() != features.frames) throw Napi::RangeError::New(env, "pitch must hold one number per frame");
  features.values = values.As<Napi::Float32Array>().Data();
  features.audible = audible.As<Napi::Uint8Array>().Data();
  features.valuesRef = Napi::Persistent(values.As<Napi::Object>());
  features.audibleRef = Napi::Persistent(audible.As<Napi::Object>());
  features.pitch = pitch.As<Napi::Float32Array>().Data();
  features.pitchRef = Napi::Persistent(pitch.As<Napi::Object>());
  return input;
}

Napi::Value DiarizeWorker::Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DiarizationInput input = DiarizationInput::Read(env, info[0]);
  std::vector<speakers::SpeechRegion> regions = ReadRegions(env, info[1]);
  const Napi::Object options = ReadOptions(env, info[2], "diarization options");
  speakers::DiarizationSettings settings;
  settings.maxVoices = IntegerOption(env, options, "maxVoices", 1, 8);
  settings.minVoices = IntegerOption(env, options, "minVoices", 1, settings.maxVoices);
  auto* worker = new DiarizeWorker(env, std::move(input), std::move(regions), settings, info[3]);
  return worker->Enqueue();
}

DiarizeWorker::DiarizeWorker(Napi::Env env, DiarizationInput input, std::vector<speakers::SpeechRegion> regions,
                             speakers::DiarizationSettings settings, const Napi::Value& control)
    : PcmWorker(env, "svc-stt:diarize", std::move(input.pcm), control),
      features_(std::move(input.features)),
      regions_(std::move(regions)),
      settings_(settings) {}

void DiarizeWorker::Execute() {
  const double start = NowMs();
  const speakers::CepstralStatisticsEmbedder embedder;
  if (!abort_.Aborted()) {
    if (!pcm_.empty()) {
      result_ = speakers::Diarize(pcm_.samples(), pcm_.size(), regions_, settings_, embedder, IsAborted, &abort_);
    } else {
      speakers::FeatureMatrix features;
      features.frames = features_.frames;
      features.values.assign(features_.values, features_.values + features_.frames * speakers::kCepstra);
      features.audible.assign(features_.audible, features_.audible + features_.frames);
      features.logPitch.assign(features_.pitch, features_.pitch + features_.frames);
      result_ = speakers::DiarizeFeatures(std::move(features), regions_, settings_, embedder, IsAborted, &abort_);
    }
  }
  if (abort_.Aborted()) {
    SetAborted();
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
  Napi::Array profiles = Napi::Array::New(env, result_.profiles.size());
  for (size_t v = 0; v < result_.profiles.size(); v++) {
    const speakers::VoiceProfile& p = result_.profiles[v];
    Napi::Object profile = Napi::Object::New(env);
    profile.Set("frames", p.frames);
    Napi::Float64Array mean = Napi::Float64Array::New(env, p.mean.size());
    std::memcpy(mean.Data(), p.mean.data(), p.mean.size() * sizeof(double));
    Napi::Float64Array covariance = Napi::Float64Array::New(env, p.covariance.size());
    std::memcpy(covariance.Data(), p.covariance.data(), p.covariance.size() * sizeof(double));
    profile.Set("mean", mean);
    profile.Set("covariance", covariance);
    Napi::Object pitch = Napi::Object::New(env);
    pitch.Set("frames", p.pitchFrames);
    pitch.Set("mean", p.pitchMean);
    pitch.Set("variance", p.pitchVariance);
    profile.Set("pitch", pitch);
    profiles.Set(static_cast<uint32_t>(v), profile);
  }
  out.Set("profiles", profiles);
  out.Set("segments", static_cast<double>(result_.segments));
  Napi::Object timings = Napi::Object::New(env);
  timings.Set("totalMs", totalMs_);
  const speakers::DiarizationStageTimings& t = result_.stages;
  Napi::Object stages = Napi::Object::New(env);
  stages.Set("cepstra", t.cepstra);
  stages.Set("pitch", t.pitch);
  stages.Set("segmentation", t.segmentation);
  stages.Set("embedding", t.embedding);
  stages.Set("projection", t.projection);
  stages.Set("clustering", t.clustering);
  stages.Set("stopping", t.stopping);
  stages.Set("resegmentation", t.resegmentation);
  stages.Set("profiles", t.profiles);
  timings.Set("stages", stages);
  out.Set("timings", timings);
  deferred_.Resolve(out);
}

Napi::Value SpeakerFeaturesWorker::Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  PinnedPcm pcm = PinnedPcm::Read(env, info[0]);
  auto* worker = new SpeakerFeaturesWorker(env, std::move(pcm), ReadRegions(env, info[1]), info[2]);
  return worker->Enqueue();
}

SpeakerFeaturesWorker::SpeakerFeaturesWorker(Napi::Env env, PinnedPcm pcm, std::vector<speakers::SpeechRegion> regions,
                                             const Napi::Value& control)
    : PcmWorker(env, "svc-stt:speaker-features", std::move(pcm), control), regions_(std::move(regions)) {}

void SpeakerFeaturesWorker::Execute() {
  if (!abort_.Aborted()) features_ = speakers::SpeakerFeatures(pcm_.samples(), pcm_.size(), regions_);
  if (abort_.Aborted()) SetAborted();
}

void SpeakerFeaturesWorker::OnOK() {
  Napi::Env env = Env();
  Napi::HandleScope scope(env);
  Napi::Object out = Napi::Object::New(env);
  out.Set("frames", static_cast<double>(features_.frames));
  Napi::Float32Array values = Napi::Float32Array::New(env, features_.values.size());
  std::memcpy(values.Data(), features_.values.data(), features_.values.size() * sizeof(float));
  Napi::Uint8Array audible = Napi::Uint8Array::New(env, features_.audible.size());
  std::memcpy(audible.Data(), features_.audible.data(), features_.audible.size());
  Napi::Float32Array pitch = Napi::Float32Array::New(env, features_.logPitch.size());
  std::memcpy(pitch.Data(), features_.logPitch.data(), features_.logPitch.size() * sizeof(float));
  out.Set("values", values);
  out.Set("audible", audible);
  out.Set("pitch", pitch);
  deferred_.Resolve(out);
}

}  // namespace svc
