// Splits a whisper_full call into phases from its callbacks: whisper.cpp only reports timings for a
// context's default state, and we run every call on its own state.
#pragma once

#include <chrono>

namespace svc {

inline double NowMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

struct PhaseTimer {
  enum class Phase { Setup, Detect, Mel, Encode, Decode, Check };
  double start = 0, phaseStart = 0;
  double setupMs = 0, detectMs = 0, melMs = 0, encodeMs = 0, decodeMs = 0, checkMs = 0, totalMs = 0;
  int encoderRuns = 0;
  // Logits the decoders produced: one per decoder per step (whisper's own decode and batched-decode runs).
  int decoderSteps = 0;
  Phase phase = Phase::Setup;

  void Begin() { start = phaseStart = NowMs(); }
  void Switch(Phase next) {
    const double now = NowMs();
    const double elapsed = now - phaseStart;
    switch (phase) {
      case Phase::Setup: setupMs += elapsed; break;
      case Phase::Detect: detectMs += elapsed; break;
      case Phase::Mel: melMs += elapsed; break;
      case Phase::Encode: encodeMs += elapsed; break;
      case Phase::Decode: decodeMs += elapsed; break;
      case Phase::Check: checkMs += elapsed; break;
    }
    phase = next;
    phaseStart = now;
  }
  void End() {
    Switch(phase);
    totalMs = NowMs() - start;
  }
};

}  // namespace svc
