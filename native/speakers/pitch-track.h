// Stage 1's second feature: the log fundamental frequency (F0) of each voiced frame. The cepstra
// c1..c19 describe the spectral envelope (the vocal tract) and deliberately smooth the harmonics
// away, so two voices of one sex whose tracts are alike look alike to them even when one speaks
// a fifth lower. F0 is the voice's source: between people it differs far more than within one
// person over a short exchange (prosody moves it, but around the speaker's own register).
//
// The estimate is the normalised cross-correlation of the frame with itself a period later (the
// NCCF of Talkin's RAPT), over periods of 60 to 400 Hz; a frame is voiced when its best peak
// reaches kVoicedCorrelation. Log scale: pitch is heard in ratios, and the spread between people
// is roughly proportional to their F0, so a log-F0 difference means the same low or high.
#pragma once

#include <cstddef>
#include <vector>

#include "cepstral-features.h"

namespace svc::speakers {

/** Per frame of `frames`: natural log of F0 in Hz for a voiced audible frame, 0 otherwise (never a real log-F0: 60 Hz is 4.1). */
std::vector<float> LogPitchTrack(const float* pcm, size_t sampleCount, const FeatureMatrix& features, const std::vector<FrameSpan>& spans);

}  // namespace svc::speakers
