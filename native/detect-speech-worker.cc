#include "detect-speech-worker.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <string>

#include "speech-level.h"
#include "stopwatch.h"
#include "vad-model-kind.h"

namespace svc {

namespace {

// whisper.cpp's detection loop cannot be interrupted, so a recording is fed to it in chunks of this
// many frames (8.2 s of audio, about 16 ms of compute here) with the abort flag checked in between; a
// call into whisper.cpp costs about 12 us beyond its frames, so the chunking itself is free.
// The LSTM state carries over from chunk to chunk and chunks hold whole frames, so the probabilities
// are exactly those of one call over the whole recording.
constexpr int kFramesPerChunk = 256;

// whisper.cpp counts samples in int, and the segment rules multiply frame indices by the frame size.
constexpr size_t kMaxSamples = static_cast<size_t>(INT_MAX / 2);

}  // namespace

Napi::Value DetectSpeechWorker::Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<VadModel> model = ModelHandle<VadModel>::ModelFrom(info[0]);
  PinnedPcm pcm = PinnedPcm::Read(env, info[1]);
  if (pcm.size() > kMaxSamples) throw Napi::RangeError::New(env, "pcm is too long for voice activity detection");
  VadOptions options = VadOptions::FromJs(env, info[2]);
  auto* worker = new DetectSpeechWorker(env, std::move(model), std::move(pcm), options, info[3]);
  return worker->Enqueue();
}

DetectSpeechWorker::DetectSpeechWorker(Napi::Env env, std::shared_ptr<VadModel> model, PinnedPcm pcm,
                                       VadOptions options, const Napi::Value& control)
    : ModelPcmWorker(env, "svc-stt:detect-speech", std::move(model), std::move(pcm), control), options_(options) {}

// Unlike whisper's operations, the VAD computes on the libuv thread itself. It is single-threaded, so
// ggml starts no OpenMP team for it, and the compute threads stay whisper's alone: were VAD calls
// (two at once, for a split recording) to run there, whisper would next land on a thread that has no
// hot team and build another, and idle teams competing for two cores made whisper 1.5x slower in
// `bench silence` (measured: the no-VAD pipeline 4.97 s before a split VAD call, 7.8 s after).
void DetectSpeechWorker::Execute() {
  Compute();
}

void DetectSpeechWorker::Compute() {
  const double start = NowMs();
  if (abort_.Aborted()) {
    SetAborted();
    return;
  }
  std::optional<VadContextLease> checkedOut;
  try {
    checkedOut.emplace(model_->Checkout());
  } catch (const std::exception& e) {
    SetError(std::string("could not create a VAD context: ") + e.what());
    return;
  }
  VadContextLease& lease = *checkedOut;
  const int frame = model_->info().frameSamples;
  const size_t chunkSamples = static_cast<size_t>(kFramesPerChunk) * frame;
  const float* samples = pcm_.samples();
  const size_t sampleCount = pcm_.size();
  probs_.reserve((sampleCount + frame - 1) / frame);
  const std::vector<double> meanSquares = FrameMeanSquares(samples, sampleCount, frame);
  levelDb_ = GatedLevelDb(meanSquares, 0, meanSquares.size());
  const size_t windowFrames = std::max<size_t>(1, static_cast<size_t>(options_.levelWindowMs) * (WHISPER_SAMPLE_RATE / 1000) / frame);
  std::vector<float> gains = LevellingGainsDb(meanSquares, windowFrames, options_.levelTargetDb, options_.maxGainDb);
  gainDb_ = gains.empty() ? 0.0 : *std::max_element(gains.begin(), gains.end());
  for (float& g : gains) g = std::pow(10.0f, g / 20.0f);
  // Each chunk is levelled into a buffer of its own, so the caller's samples are never written.
  std::vector<float> levelled(gainDb_ > 0 ? std::min(chunkSamples, sampleCount) : 0);
  const double detectStart = NowMs();
  for (size_t offset = 0; offset < sampleCount; offset += chunkSamples) {
    // A job's VAD call is held here (between chunks of about 8 s of audio) while a realtime one runs.
    abort_.WaitWhileHeld();
    if (abort_.Aborted()) {
      SetAborted();
      return;  // the lease returns the context: the next call resets its state
    }
    const int n = static_cast<int>(std::min(chunkSamples, sampleCount - offset));
    const float* chunk = samples + offset;
    if (gainDb_ > 0) {
      // Clipped at full scale as a converter would: a loud event in quiet audio may pass it.
      // Chunks hold whole frames, so sample i of this chunk lies in frame (offset + i) / frame.
      for (int i = 0; i < n; i++) levelled[i] = std::clamp(chunk[i] * gains[(offset + i) / frame], -1.0f, 1.0f);
      chunk = levelled.data();
    }
    // The first chunk resets the LSTM state, so nothing from the context's previous call leaks in.
    const bool ok = offset == 0 ? whisper_vad_detect_speech(lease.get(), chunk, n) : whisper_vad_detect_speech_no_reset(lease.get(), chunk, n);
    const int produced = whisper_vad_n_probs(lease.get());
    if (!ok || produced != (n + frame - 1) / frame) {
      lease.Discard();
      SetError("whisper.cpp failed to run the VAD model");
      return;
    }
    const float* p = whisper_vad_probs(lease.get());
    probs_.insert(probs_.end(), p, p + produced);
  }
  detectMs_ = NowMs() - detectStart;
  segments_ = SpeechSegmentsFromProbs(probs_, frame, options_.params);
  totalMs_ = NowMs() - start;
}

void DetectSpeechWorker::OnOK() {
  Napi::Env env = Env();
  Napi::HandleScope scope(env);
  const double rate = WHISPER_SAMPLE_RATE;
  Napi::Object result = Napi::Object::New(env);
  result.Set("frameSamples", model_->info().frameSamples);
  Napi::Float32Array probabilities = Napi::Float32Array::New(env, probs_.size());
  std::copy(probs_.begin(), probs_.end(), probabilities.Data());
  result.Set("probabilities", probabilities);
  Napi::Array segments = Napi::Array::New(env, segments_.size());
  for (size_t i = 0; i < segments_.size(); i++) {
    Napi::Object segment = Napi::Object::New(env);
    segment.Set("start", segments_[i].startSample / rate);
    segment.Set("end", segments_[i].endSample / rate);
    segments.Set(static_cast<uint32_t>(i), segment);
  }
  result.Set("segments", segments);
  Napi::Object timings = Napi::Object::New(env);
  timings.Set("totalMs", totalMs_);
  timings.Set("detectMs", detectMs_);
  result.Set("timings", timings);
  Napi::Object levelling = Napi::Object::New(env);
  levelling.Set("levelDb", levelDb_);
  levelling.Set("gainDb", gainDb_);
  result.Set("levelling", levelling);
  deferred_.Resolve(result);
}

}  // namespace svc
