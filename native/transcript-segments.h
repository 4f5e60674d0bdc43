// A decoded segment as the addon hands it to JavaScript: read from a whisper_state on the compute
// thread, converted on the JavaScript thread. One reader and one converter serve both the final
// result and the segments reported while decoding (onSegments), so the two can never differ.
#pragma once

#include <cstdint>
#include <string>
#include <vector>
#include <napi.h>
#include <whisper.h>

namespace svc {

struct TokenResult {
  int id;
  std::string bytes;
  float p, plog;
  int64_t t0, t1, tDtw;
  bool special;
};

struct SegmentResult {
  int64_t t0, t1;
  std::string bytes;
  float noSpeechProb;
  bool speakerTurnNext;
  std::vector<TokenResult> tokens;
};

/** Segment `i` of the state's result, with its tokens and its window's no-speech probability (no-speech.h). */
SegmentResult ReadSegment(whisper_context* ctx, whisper_state* state, int i, float noSpeechProb);

/** whisper.cpp times are in 10 ms units; -1 means "not computed" and stays -1. */
double Seconds(int64_t centiseconds);

Napi::Buffer<uint8_t> Bytes(Napi::Env env, const std::string& s);

Napi::Array SegmentsToJs(Napi::Env env, const std::vector<SegmentResult>& segments);

}  // namespace svc
