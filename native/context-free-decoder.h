// The vocabulary safety check's second decode (docs/DESIGN.md lever 3: encode once, decode twice):
// a greedy decode of the encoder output a whisper_state already holds, with no prompt and no past
// text, so a prompted whisper_full call can be compared with what the audio says on its own without
// a second encoder run. whisper.cpp's public API gives the last position's logits of
// whisper_decode_with_state, so the decode goes token by token; the sampling rules are whisper's
// own at temperature 0 (special tokens suppressed, no blank start, timestamps in pairs and never
// decreasing, a timestamp when the timestamps together outweigh every text token).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "whisper.h"

#include "abort-control.h"

namespace svc {

struct CheckToken {
  whisper_token id;
  std::string bytes;
  float p;
  bool special;
};

struct CheckSegment {
  int64_t t0, t1;  // centiseconds from the start of the window
  std::string bytes;
  std::vector<CheckToken> tokens;
};

struct CheckPass {
  bool ran = false;
  // The window's no-speech probability (no-speech.h), set by the caller.
  float noSpeechProb = 0;
  int steps = 0;
  // Stopped at the step bound the caller gave (not at end-of-text or whisper's own window bound).
  bool capped = false;
  std::vector<CheckSegment> segments;
};

// Decodes the window whose encoder output `state` holds; `windowCentis` is the audio the window covers
// (timestamps past it are refused); `stepBound` > 0 stops the decode after that many tokens (the caller
// already knows a longer check cannot pass). Returns false when whisper.cpp fails or the call is aborted.
bool DecodeContextFree(whisper_context* ctx, whisper_state* state, const std::string& language, int64_t windowCentis,
                       int stepBound, int nThreads, const AbortControl& abort, CheckPass& out);

}  // namespace svc
