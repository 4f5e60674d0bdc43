// How loud a recording's active part is, to level what the VAD hears: Silero's speech probabilities
// fall with the input's level (far-field speech 25-35 dB below a close microphone's is missed), so the
// VAD is fed the audio raised towards the level it was trained on.
//
// The measure is EBU R 128's gating, over the VAD's own frames: the mean square of the frames above an
// absolute gate (-70 dBFS: digital silence and the quietest rooms never count), then of those within
// 10 dB of that mean (the relative gate: pauses and room noise drop out, whatever share of the
// recording they fill). A recording that is mostly silence is measured on its speech; one that is only
// noise, on its noise. No K-weighting: the VAD sees the spectrum as it is.
#pragma once

#include <cstddef>

namespace svc {

// The gated level in dBFS (a full-scale sine is -3); -infinity when no frame passes the absolute gate.
double GatedLevelDb(const float* samples, size_t count, int frameSamples);

// The gain (dB) that brings `levelDb` to `targetDb`: never negative (loud audio is left as it is), at
// most `maxGainDb` (0: levelling off), 0 for a level of -infinity (nothing above the gate to level).
double LevellingGainDb(double levelDb, double targetDb, double maxGainDb);

}  // namespace svc
