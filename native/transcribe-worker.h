// One AsyncWorker per transcription: whisper_full on a whisper_state leased from the model's pool
// (fresh, or kept where nothing in it can reach this call: whisper-state.h), on the shared model, off
// the JavaScript thread. Resolves a Promise.
// Each window's segments get the window's no-speech probability (no-speech.h), decoded from its encoder
// output while the state still holds it: at the window's first finished segment, before the next encode,
// or after whisper_full returns.
// With contextFreeCheck, the first window's encoder output is decoded a second time without the prompt
// (the vocabulary safety check), either when whisper_full is about to encode its second window or, for
// a one-window call, after it returns.
// With onSegments, each segment whisper_full finishes is reported as it is decoded, in the final
// result's shape (transcript-segments.h): a caller can stream text before the call returns.
#pragma once

#include <memory>
#include <string>
#include <vector>
#include <napi.h>

#include "context-free-decoder.h"
#include "model-registry.h"
#include "pcm-worker.h"
#include "stopwatch.h"
#include "transcribe-options.h"
#include "transcript-segments.h"

namespace svc {

class TranscribeWorker : public ModelPcmWorker<LoadedModel> {
 public:
  // transcribe(model, pcm, options, control?, onProgress?, onSegments?) -> Promise<NativeTranscribeResult>
  static Napi::Value Start(const Napi::CallbackInfo& info);

  TranscribeWorker(Napi::Env env, std::shared_ptr<LoadedModel> model, PinnedPcm pcm, TranscribeOptions options,
                   const Napi::Value& control, const Napi::Value& onProgress, const Napi::Value& onSegments);
  ~TranscribeWorker() override;

 protected:
  void Execute() override;
  void Compute();
  void OnOK() override;

 private:
  static void OnWhisperProgress(whisper_context*, whisper_state*, int progress, void* self);
  static bool OnEncoderBegin(whisper_context*, whisper_state*, void* self);
  static void OnNewSegment(whisper_context*, whisper_state*, int, void* self);
  static void OnLogits(whisper_context*, whisper_state*, const whisper_token_data*, int, float*, void* self);
  bool DrewRandomness() const;
  void ReportProgress(int percent);
  void Collect(whisper_state* state);
  // The context-free decode of the window `state` holds (options_.contextFreeCheck).
  bool RunCheck(whisper_context* ctx, whisper_state* state, int stepBound);
  int CheckStepBound(whisper_context* ctx, whisper_state* state) const;
  // The no-speech probability of the window the state holds (no-speech.h), decoded once per window.
  bool PassNoSpeech(whisper_context* ctx, whisper_state* state, float& out);
  // Gives the segments whisper_full added since the last call their window's no-speech probability.
  bool AttributeNoSpeech(whisper_context* ctx, whisper_state* state);

  TranscribeOptions options_;
  Napi::ThreadSafeFunction progress_;
  bool hasProgress_ = false;
  Napi::ThreadSafeFunction segmentsFn_;
  bool hasSegments_ = false;
  // Segments already reported through onSegments (whisper.cpp's own count argument is unreliable
  // under DTW, so the state's segment count is what decides what is new).
  int reportedSegments_ = 0;

  // Results, filled on the compute thread and converted on the JavaScript thread.
  std::string language_;
  double languageProbability_ = -1;
  std::vector<SegmentResult> segments_;
  CheckPass check_;
  bool checkFailed_ = false;
  // Per segment, its window's no-speech probability (whisper.cpp's own figure is not one: no-speech.h).
  std::vector<float> segmentNoSpeech_;
  float noSpeech_ = 0;
  int noSpeechRun_ = 0;
  bool noSpeechFailed_ = false;
  PhaseTimer timer_;
  // A window's decoding started over (a temperature fallback: the first decoder then samples): the
  // encoder run of the last first step, and whether a second one came for the same window.
  int firstStepRun_ = -1;
  bool decodedAgain_ = false;
};

}  // namespace svc
