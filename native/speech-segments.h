// Speech segments from per-frame speech probabilities: whisper.cpp 1.9.1's
// whisper_vad_segments_from_probs (src/whisper.cpp), rule for rule, over a probability array we own.
//
// Why a copy rather than a call: whisper.cpp's function reads the probabilities that the context's
// last whisper_vad_detect_speech* call left behind, and each call replaces them. A detection that can
// be aborted must run in chunks (whisper.cpp's detection loop has no abort hook), so after the last
// chunk the context holds only that chunk's probabilities. The rules are kept as upstream has them,
// quirks included (the hard-coded 98 ms split point and 200 ms merge gap, max_speech_duration_s
// truncated to whole seconds, the last segment allowed to run to the end of the last frame), so the
// results equal whisper.cpp's own VAD: test/engine/vad.test.ts compares them with whisper-cli's.
// The one difference is the unit: segment bounds stay in samples, where whisper.cpp rounds them to
// centiseconds.
#pragma once

#include <vector>

#include "whisper.h"

namespace svc {

struct SpeechSegment {
  int startSample;
  int endSample;
};

std::vector<SpeechSegment> SpeechSegmentsFromProbs(const std::vector<float>& probs, int frameSamples,
                                                   const whisper_vad_params& params);

}  // namespace svc
