// Who spoke when, from 16 kHz PCM and the VAD's speech regions, training-free and deterministic.
// The stages (each its own file):
//   1. cepstral features of the speech frames, normalised over the recording (cepstral-features.h),
//      and their log-F0 where voiced (pitch-track.h);
//   2. each speech region cut into segments of about a second (longer for long recordings, so that
//      clustering stays within kMaxSegments);
//   3. one vector per segment from the embedder (speaker-embedder.h: the seam for a neural model);
//   4. a discriminant projection learned from adjacent segments, its within-voice scatter shrunk
//      towards the identity as far as the pairs leave it uncertain (discriminant-projection.h);
//   5. average-linkage clustering cut at the most voices ever reported (average-linkage.h);
//   6. the Bayesian information criterion merging clusters that are one voice: separate means, one
//      pooled covariance, on each segment's loud frames, their log-F0 tested beside the cepstra
//      (gaussian-statistics.h, loud-frames.h); then
//      clusters heard too briefly (under 3 s and under a share of the speech) given to their nearest voice;
//   7. re-segmentation: where adjacent segments belong to different voices, the change point moves to
//      the frame where the two voices' Gaussians best explain the audio on either side;
//   8. each voice's profile, in raw cepstra, for naming known speakers (voice-profile.h).
// Turns do not overlap: when two people speak at once the louder voice's cluster usually wins the
// frames; overlap detection would need a trained model.
#pragma once

#include <cstddef>
#include <vector>

#include "voice-profile.h"

namespace svc::speakers {

struct SpeechRegion {
  double start = 0;  // seconds
  double end = 0;
};

struct SpeakerTurn {
  double start = 0;  // seconds
  double end = 0;
  int speaker = 0;   // 0-based, in order of first appearance
};

struct DiarizationSettings {
  /** Voices ever told apart; more are merged into these (1 to 8). */
  int maxVoices = 4;
  /**
   * Voices the stopping rule and the brief-voice rule leave at least, when the clustering found that
   * many (1 to maxVoices): the caller knows more voices speak than the evidence alone would split.
   */
  int minVoices = 1;
};

/** Milliseconds each stage took (steady clock), for the caller to report: where the time goes. */
struct DiarizationStageTimings {
  double cepstra = 0;         // 1: cepstral features (0 when the caller gave features)
  double pitch = 0;           // 1: the pitch track (0 when the caller gave features)
  double segmentation = 0;    // 2: segments cut, cepstra normalised
  double embedding = 0;       // 3
  double projection = 0;      // 4
  double clustering = 0;      // 5
  double stopping = 0;        // 6: the stopping rule and brief voices
  double resegmentation = 0;  // 7: short segments labelled, change points moved, turns assembled
  double profiles = 0;        // 8
};

struct DiarizationResult {
  std::vector<SpeakerTurn> turns;
  int voices = 0;
  /** One per voice, in the turns' numbering: statistics comparable across recordings (voice-profile.h). */
  std::vector<VoiceProfile> profiles;
  /** Segments clustered (for diagnostics and tests). */
  size_t segments = 0;
  DiarizationStageTimings stages;
};

class SpeakerEmbedder;
struct FeatureMatrix;

/** Frames of `sampleCount` samples (frame t starts at sample t * kFrameHop; cepstral-features.h). */
size_t FrameCount(size_t sampleCount);

/**
 * Stage 1 alone: the features (cepstra and log-F0) of the frames inside `regions` (seconds from the first sample), not yet
 * normalised. A long recording is decoded window by window and its windows' features joined, so that
 * stages 2 to 7 see the whole recording at once (the same voice keeps its label throughout).
 */
FeatureMatrix SpeakerFeatures(const float* pcm, size_t sampleCount, const std::vector<SpeechRegion>& regions, DiarizationStageTimings* timings = nullptr);

/**
 * Stages 2 to 7 over the features of a whole recording (frames outside `regions` are never read).
 * `aborted` is polled between stages; when it returns true, the result is empty.
 */
DiarizationResult DiarizeFeatures(FeatureMatrix features, const std::vector<SpeechRegion>& regions, const DiarizationSettings& settings,
                                  const SpeakerEmbedder& embedder, bool (*aborted)(void*), void* abortContext);

/** All stages over one stretch of PCM. */
DiarizationResult Diarize(const float* pcm, size_t sampleCount, const std::vector<SpeechRegion>& regions,
                          const DiarizationSettings& settings, const SpeakerEmbedder& embedder, bool (*aborted)(void*), void* abortContext);

}  // namespace svc::speakers
