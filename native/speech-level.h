// How loud each stretch of a recording is, to level what the VAD hears. Silero's speech probabilities
// fall with the input's level, and with the level of what it heard just before: far-field speech 25-35
// dB below a close microphone's is missed, and so is a quiet talker right after a loud one. So the VAD
// is fed each stretch raised towards the level it was trained on.
//
// The measure is EBU R 128's gating, over the VAD's own frames: the mean square of the frames above an
// absolute gate (-70 dBFS: digital silence and the quietest rooms never count), then of those within
// 10 dB of that mean (the relative gate: pauses and room noise drop out, whatever share of the stretch
// they fill). Speech is measured on its speech; a stretch of noise alone, on its noise. No K-weighting:
// the VAD sees the spectrum as it is.
#pragma once

#include <cstddef>
#include <vector>

namespace svc {

// The mean square of each frame of `frameSamples` (the last one zero-padded, as the VAD pads it).
std::vector<double> FrameMeanSquares(const float* samples, size_t count, int frameSamples);

// The gated level in dBFS of frames [from, to) (a full-scale sine is -3); -infinity when no frame
// passes the absolute gate.
double GatedLevelDb(const std::vector<double>& meanSquares, size_t from, size_t to);

// Per frame, the gain (dB) that brings the gated level of the `windowFrames` frames centred on it to
// `targetDb`: never negative (loud audio is left as it is), at most `maxGainDb` (0: levelling off), 0
// where nothing in the window passes the absolute gate.
std::vector<float> LevellingGainsDb(const std::vector<double>& meanSquares, size_t windowFrames, double targetDb, double maxGainDb);

}  // namespace svc
