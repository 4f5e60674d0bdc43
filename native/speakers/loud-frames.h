// The frames the stopping rule compares voices on: in each segment (about a second), those within
// kLoudRangeDb of its loudest (the 95th percentile of its audible frames' loudness). They are the
// nuclei of vowels and voiced consonants, where the vocal tract's resonances (formants) and the
// voice's source show most clearly. The quieter frames (fricatives, stops, the onsets and decays of
// words, breath) change with what is said more than with who says it, and are the first to be
// masked by noise: in a short exchange they add more spread within one voice than difference
// between two. Energy-based frame selection of this kind is common practice in speaker recognition.
//
// Relative to each segment, not to the recording: a voice far from the microphone keeps its own
// loud frames.
#pragma once

#include <vector>

#include "cepstral-features.h"

namespace svc::speakers {

/** How far below a segment's loudest frames a frame may be and still count as loud (dB). */
constexpr int kLoudRangeDb = 6;

/** 1 for the loud frames of each segment, 0 elsewhere (one flag per frame of `features`). */
std::vector<unsigned char> LoudFrames(const FeatureMatrix& features, const std::vector<FrameSpan>& segments);

}  // namespace svc::speakers
