#include "diarizer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "average-linkage.h"
#include "cepstral-features.h"
#include "discriminant-projection.h"
#include "gaussian-statistics.h"
#include "loud-frames.h"
#include "pitch-track.h"
#include "speaker-embedder.h"
#include "symmetric-matrix.h"

namespace svc::speakers {

namespace {

constexpr size_t kFramesPerSecond = kSampleRate / kFrameHop;
/** Segment length where the recording allows (1 s: short enough for quick turns, long enough for statistics). */
constexpr size_t kSegmentFrames = 100;
/** Clustering is O(n^2) in memory: longer recordings get longer segments instead of more of them. */
constexpr size_t kMaxSegments = 3000;
/** Shorter segments are too noisy to cluster; they take the voice of the nearest segment in time. */
constexpr size_t kMinClusteredFrames = 30;
/** Dimensions kept by the discriminant projection. */
constexpr int kDiscriminantDimensions = 8;
/**
 * BIC penalty weight λ and the frame cap of its likelihood term (30 s). λ > 1 because 10 ms frames are
 * far from independent (their correlation time on speech is about 7 frames, so N frames carry the
 * evidence of fewer). Chosen on generated speech only (bench diarization and diarization-short), never
 * on real recordings: at 2.5 one voice taking four turns starts to come back as two, at 3.5 two voices
 * taking four short turns start to come back as one.
 */
constexpr double kBicPenaltyWeight = 3.0;
constexpr double kBicCapFrames = 3000;
/**
 * How much the log-F0 test's likelihood counts against the cepstral test's, per frame. Under 1 because
 * a voice's pitch drifts with the phrase (declination, a sentence's final fall, a question's rise):
 * within one second log-F0 frames scatter little, so two stretches of one voice said with different
 * intonation differ by many of those small spreads (measured on generated lone voices: cluster means
 * 8 to 20 % apart), while the cepstra's frame-to-frame spread (the phonemes) already dwarfs their
 * drift. Chosen on generated speech only (bench diarization-short, 60 seeds of each kind): at 0.8 and
 * 1 four lone voices of 60 split (sentence-final falls; at 0.5 one), at 0.3 alike pairs merge as before.
 */
constexpr double kPitchEvidenceWeight = 0.5;
/**
 * A voice heard for less than this in total, and for less than this share of the clustered speech, is
 * not reported as a voice of its own. In a long recording a cluster of a second or two is more likely a
 * cough, a laugh or crosstalk than a person; in a short exchange it is a person's whole turn.
 */
constexpr double kMinVoiceSeconds = 3.0;
constexpr double kMinVoiceShare = 0.15;
/** Re-segmentation keeps at least this much of each segment (frames). */
constexpr size_t kMinResegmentedFrames = 10;

struct Segment {
  FrameSpan span;
  size_t region = 0;
  int label = -1;
};

std::vector<FrameSpan> RegionSpans(const std::vector<SpeechRegion>& regions, size_t frames) {
  std::vector<FrameSpan> spans;
  for (const SpeechRegion& r : regions) {
    const size_t start = std::min(frames, static_cast<size_t>(std::max(0.0, std::floor(r.start * kFramesPerSecond))));
    const size_t end = std::min(frames, static_cast<size_t>(std::max(0.0, std::ceil(r.end * kFramesPerSecond))));
    spans.push_back({start, std::max(start, end)});
  }
  return spans;
}

std::vector<Segment> CutSegments(const std::vector<FrameSpan>& spans) {
  size_t speech = 0;
  for (const FrameSpan& s : spans) speech += s.Length();
  const size_t target = std::max(kSegmentFrames, (speech + kMaxSegments - 1) / kMaxSegments);
  std::vector<Segment> segments;
  for (size_t r = 0; r < spans.size(); r++) {
    const FrameSpan& span = spans[r];
    if (span.Length() == 0) continue;
    const size_t pieces = std::max<size_t>(1, static_cast<size_t>(std::llround(static_cast<double>(span.Length()) / target)));
    for (size_t p = 0; p < pieces; p++) {
      const size_t a = span.start + span.Length() * p / pieces, b = span.start + span.Length() * (p + 1) / pieces;
      segments.push_back({{a, b}, r, -1});
    }
  }
  return segments;
}

/** Each cluster's Gaussian over the frames of its segments that `use` flags. */
std::vector<GaussianStatistics> ClusterStatistics(const FeatureMatrix& features, const std::vector<Segment>& segments, int clusters,
                                                  const std::vector<unsigned char>& use) {
  std::vector<GaussianStatistics> stats(clusters);
  for (const Segment& s : segments) {
    if (s.label < 0) continue;
    for (size_t f = s.span.start; f < s.span.end; f++) {
      if (use[f]) stats[s.label].Add(features.Row(f));
    }
  }
  return stats;
}

/**
 * Merges the pair of clusters with the lowest ΔBIC while it says they are one voice, down to `floor`
 * of them, judging voices on the segments' loud frames (loud-frames.h). Returns the count left.
 */
int MergeByBic(const FeatureMatrix& features, std::vector<Segment>& segments, int clusters, int floor) {
  std::vector<FrameSpan> spans;
  for (const Segment& s : segments) spans.push_back(s.span);
  const std::vector<unsigned char> loud = LoudFrames(features, spans);
  std::vector<GaussianStatistics> stats = ClusterStatistics(features, segments, clusters, loud);
  std::vector<PitchStatistics> pitch(clusters);
  for (const Segment& s : segments) {
    if (s.label < 0 || features.logPitch.size() != features.frames) continue;
    for (size_t f = s.span.start; f < s.span.end; f++) {
      if (loud[f] && features.logPitch[f] > 0) pitch[s.label].Add(features.logPitch[f]);
    }
  }
  std::vector<int> alias(clusters);
  for (int c = 0; c < clusters; c++) alias[c] = c;
  std::vector<char> alive(clusters, 1);
  int count = clusters;
  while (count > std::max(1, floor)) {
    double best = std::numeric_limits<double>::infinity();
    int bestA = -1, bestB = -1;
    for (int a = 0; a < clusters; a++)
      for (int b = a + 1; b < clusters; b++) {
        if (!alive[a] || !alive[b]) continue;
        // Envelope and source tested apart and their evidence added: the source-filter model of speech
        // makes them independent to a first approximation, and one pooled 20-dimensional covariance
        // would need every frame voiced.
        const double d = DeltaBic(stats[a], stats[b], kBicPenaltyWeight, kBicCapFrames) +
                         PitchDeltaBic(pitch[a], pitch[b], kPitchEvidenceWeight, kBicPenaltyWeight, kBicCapFrames);
        if (d < best) best = d, bestA = a, bestB = b;
      }
    if (best > 0) break;
    stats[bestA].Add(stats[bestB]);
    pitch[bestA].Add(pitch[bestB]);
    alive[bestB] = 0;
    for (int& x : alias) if (x == bestB) x = bestA;
    count--;
  }
  for (Segment& s : segments) if (s.label >= 0) s.label = alias[s.label];
  return count;
}

/**
 * Segments of voices heard too briefly go to the voice whose centroid they are nearest (cosine); the
 * longest of them stay voices of their own while fewer than `floor` voices would be left.
 */
void AbsorbBriefVoices(std::vector<Segment>& segments, const std::vector<size_t>& clustered, const std::vector<double>& vectors, int width, int clusters,
                       int floor) {
  std::vector<double> frames(clusters, 0.0);
  double speech = 0;
  for (const Segment& s : segments) if (s.label >= 0) frames[s.label] += s.span.Length(), speech += s.span.Length();
  const double brief = std::min(kMinVoiceSeconds * kFramesPerSecond, kMinVoiceShare * speech);
  std::vector<char> kept(clusters, 0);
  int keptCount = 0;
  for (int c = 0; c < clusters; c++) keptCount += (kept[c] = frames[c] >= brief) != 0;
  std::vector<int> byLength(clusters);
  for (int c = 0; c < clusters; c++) byLength[c] = c;
  std::stable_sort(byLength.begin(), byLength.end(), [&](int a, int b) { return frames[a] > frames[b]; });
  for (int c : byLength) {
    if (keptCount >= floor) break;
    if (!kept[c] && frames[c] > 0) kept[c] = 1, keptCount++;
  }
  const bool any = keptCount > 0;
  if (!any) {
    // Nobody spoke long enough to be told apart: one voice.
    for (Segment& s : segments) if (s.label >= 0) s.label = 0;
    return;
  }
  std::vector<double> centroid(clusters * width, 0.0);
  for (size_t k = 0; k < clustered.size(); k++) {
    const int c = segments[clustered[k]].label;
    for (int j = 0; j < width; j++) centroid[c * width + j] += vectors[k * width + j];
  }
  for (size_t k = 0; k < clustered.size(); k++) {
    Segment& s = segments[clustered[k]];
    if (kept[s.label]) continue;
    double best = -std::numeric_limits<double>::infinity();
    int to = -1;
    for (int c = 0; c < clusters; c++) {
      if (!kept[c]) continue;
      double dot = 0, norm = 0;
      for (int j = 0; j < width; j++) dot += vectors[k * width + j] * centroid[c * width + j], norm += centroid[c * width + j] * centroid[c * width + j];
      const double cosine = dot / std::sqrt(std::max(norm, 1e-300));
      if (cosine > best) best = cosine, to = c;
    }
    s.label = to;
  }
}

/** Short segments take the voice of the nearest clustered segment in time (the earlier one on a tie). */
void LabelShortSegments(std::vector<Segment>& segments) {
  const std::vector<Segment> clustered(segments);
  for (Segment& s : segments) {
    if (s.label >= 0) continue;
    size_t bestGap = std::numeric_limits<size_t>::max();
    for (const Segment& other : clustered) {
      if (other.label < 0) continue;
      const size_t gap = other.span.end <= s.span.start ? s.span.start - other.span.end : other.span.start - s.span.end;
      if (gap < bestGap) bestGap = gap, s.label = other.label;
    }
    if (s.label < 0) s.label = 0;
  }
}

/** Moves each change of voice inside a region to the best-explained frame (see the header). */
void Resegment(const FeatureMatrix& features, std::vector<Segment>& segments, int clusters) {
  std::vector<GaussianStatistics> stats = ClusterStatistics(features, segments, clusters, features.audible);
  std::vector<std::vector<double>> means(clusters), factors(clusters);
  std::vector<double> logDets(clusters, 0.0);
  std::vector<char> usable(clusters, 0);
  for (int c = 0; c < clusters; c++) {
    usable[c] = stats[c].Model(means[c], factors[c]);
    if (usable[c]) logDets[c] = LogDeterminantFromCholesky(factors[c], kCepstra);
  }
  for (size_t i = 0; i + 1 < segments.size(); i++) {
    Segment& left = segments[i];
    Segment& right = segments[i + 1];
    if (left.region != right.region || left.label == right.label || left.span.end != right.span.start) continue;
    if (!usable[left.label] || !usable[right.label]) continue;
    const size_t from = left.span.start + kMinResegmentedFrames, to = right.span.end - kMinResegmentedFrames;
    if (from >= to) continue;
    // score(t) = Σ_{f<t} ll_left(f) + Σ_{f>=t} ll_right(f), up to a constant: a running difference.
    double best = 0;
    size_t bestCut = left.span.end;
    std::vector<double> gain(to - left.span.start, 0.0);
    for (size_t f = left.span.start; f < to; f++) {
      if (!features.audible[f]) continue;  // silence favours neither voice
      const float* x = features.Row(f);
      gain[f - left.span.start] = FrameLogLikelihood(x, means[left.label], factors[left.label], logDets[left.label]) -
                                  FrameLogLikelihood(x, means[right.label], factors[right.label], logDets[right.label]);
    }
    // Relative to the current cut: moving it right adds gains, moving it left subtracts them.
    double running = 0;
    for (size_t t = left.span.end; t < to; t++) {
      running += gain[t - left.span.start];
      if (running > best) best = running, bestCut = t + 1;
    }
    running = 0;
    for (size_t t = left.span.end; t > from; t--) {
      running -= gain[t - 1 - left.span.start];
      if (running > best) best = running, bestCut = t - 1;
    }
    left.span.end = right.span.start = bestCut;
  }
}

}  // namespace

namespace {

/** Milliseconds since the last call (the first: since construction), on the steady clock. */
class StageClock {
 public:
  double Lap() {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    return ms;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace

size_t FrameCount(size_t sampleCount) {
  return sampleCount < static_cast<size_t>(kFrameLength) ? 0 : 1 + (sampleCount - kFrameLength) / kFrameHop;
}

FeatureMatrix SpeakerFeatures(const float* pcm, size_t sampleCount, const std::vector<SpeechRegion>& regions, DiarizationStageTimings* timings) {
  StageClock clock;
  const std::vector<FrameSpan> spans = RegionSpans(regions, FrameCount(sampleCount));
  FeatureMatrix features = CepstralFeatures(pcm, sampleCount, spans);
  const double cepstraMs = clock.Lap();
  features.logPitch = LogPitchTrack(pcm, sampleCount, features, spans);
  if (timings) timings->cepstra = cepstraMs, timings->pitch = clock.Lap();
  return features;
}

DiarizationResult Diarize(const float* pcm, size_t sampleCount, const std::vector<SpeechRegion>& regions,
                          const DiarizationSettings& settings, const SpeakerEmbedder& embedder, bool (*aborted)(void*), void* abortContext) {
  DiarizationStageTimings first;
  FeatureMatrix features = SpeakerFeatures(pcm, sampleCount, regions, &first);
  DiarizationResult result = DiarizeFeatures(std::move(features), regions, settings, embedder, aborted, abortContext);
  result.stages.cepstra = first.cepstra, result.stages.pitch = first.pitch;
  return result;
}

DiarizationResult DiarizeFeatures(FeatureMatrix features, const std::vector<SpeechRegion>& regions, const DiarizationSettings& settings,
                                  const SpeakerEmbedder& embedder, bool (*aborted)(void*), void* abortContext) {
  DiarizationResult result;
  StageClock clock;
  const std::vector<FrameSpan> spans = RegionSpans(regions, features.frames);
  std::vector<Segment> segments = CutSegments(spans);
  result.segments = segments.size();
  if (segments.empty()) return result;

  const CepstralNormalization normalization = NormalizeOverSpans(features, spans);
  if (aborted(abortContext)) return {};
  result.stages.segmentation = clock.Lap();

  std::vector<size_t> clustered;
  std::vector<FrameSpan> clusteredSpans;
  std::vector<std::pair<size_t, size_t>> adjacent;
  for (size_t i = 0; i < segments.size(); i++) {
    size_t audible = 0;
    for (size_t f = segments[i].span.start; f < segments[i].span.end; f++) audible += features.audible[f] != 0;
    if (audible < kMinClusteredFrames) continue;
    if (!clustered.empty()) {
      const Segment& previous = segments[clustered.back()];
      if (previous.region == segments[i].region && previous.span.end == segments[i].span.start) adjacent.emplace_back(clustered.size() - 1, clustered.size());
    }
    clustered.push_back(i);
    clusteredSpans.push_back(segments[i].span);
  }

  int clusters = 1;
  std::vector<double> vectors;
  int width = 0;
  if (clustered.empty()) {
    for (Segment& s : segments) s.label = 0;
  } else {
    const std::vector<double> embeddings = embedder.Embed(features, clusteredSpans);
    result.stages.embedding = clock.Lap();
    vectors = DiscriminantProjection(embeddings, clustered.size(), embedder.Dimensions(), adjacent, kDiscriminantDimensions, &width);
    result.stages.projection = clock.Lap();
    if (aborted(abortContext)) return {};
    const std::vector<int> labels = AverageLinkageClusters(vectors, clustered.size(), width, std::clamp(settings.maxVoices, 1, 8));
    for (size_t k = 0; k < clustered.size(); k++) segments[clustered[k]].label = labels[k];
    clusters = labels.empty() ? 1 : *std::max_element(labels.begin(), labels.end()) + 1;
    result.stages.clustering = clock.Lap();
    if (aborted(abortContext)) return {};
    const int floor = std::clamp(settings.minVoices, 1, std::clamp(settings.maxVoices, 1, 8));
    MergeByBic(features, segments, clusters, floor);
    AbsorbBriefVoices(segments, clustered, vectors, width, clusters, floor);
    result.stages.stopping = clock.Lap();
    LabelShortSegments(segments);
    Resegment(features, segments, clusters);
  }

  // Turns: runs of one voice over touching segments, in seconds; region edges keep the VAD's times.
  std::vector<int> renumber(std::max(clusters, 1), -1);
  int next = 0;
  for (size_t i = 0; i < segments.size(); i++) {
    const Segment& s = segments[i];
    if (s.span.Length() == 0) continue;
    if (renumber[s.label] < 0) renumber[s.label] = next++;
    const int speaker = renumber[s.label];
    const double start = s.span.start == spans[s.region].start ? regions[s.region].start : static_cast<double>(s.span.start) / kFramesPerSecond;
    const double end = s.span.end == spans[s.region].end ? regions[s.region].end : static_cast<double>(s.span.end) / kFramesPerSecond;
    if (!result.turns.empty() && result.turns.back().speaker == speaker && i > 0 && segments[i - 1].region == s.region) {
      result.turns.back().end = end;
    } else {
      result.turns.push_back({start, end, speaker});
    }
  }
  result.voices = next;
  result.stages.resegmentation = clock.Lap();
  std::vector<FrameSpan> segmentSpans;
  std::vector<int> voiceOf;
  for (const Segment& s : segments) {
    segmentSpans.push_back(s.span);
    voiceOf.push_back(s.span.Length() == 0 ? -1 : renumber[s.label]);
  }
  result.profiles = VoiceProfiles(features, normalization, segmentSpans, voiceOf, next);
  result.stages.profiles = clock.Lap();
  return result;
}

}  // namespace svc::speakers
