#include "speech-segments.h"

#include <climits>

namespace svc {

std::vector<SpeechSegment> SpeechSegmentsFromProbs(const std::vector<float>& probs, int frameSamples,
                                                   const whisper_vad_params& params) {
  const int n_probs = static_cast<int>(probs.size());
  const float threshold = params.threshold;
  const int n_window = frameSamples;
  const int sample_rate = WHISPER_SAMPLE_RATE;
  const int min_silence_samples = sample_rate * params.min_silence_duration_ms / 1000;
  const int audio_length_samples = n_probs * n_window;
  const int min_speech_samples = sample_rate * params.min_speech_duration_ms / 1000;
  const int speech_pad_samples = sample_rate * params.speech_pad_ms / 1000;

  int max_speech_samples;
  if (params.max_speech_duration_s > 100000.0f) {
    max_speech_samples = INT_MAX / 2;
  } else {
    const int64_t temp = static_cast<int64_t>(sample_rate) * static_cast<int64_t>(params.max_speech_duration_s) - n_window -
                         2 * speech_pad_samples;
    max_speech_samples = (temp > INT_MAX) ? INT_MAX / 2 : static_cast<int>(temp);
    if (max_speech_samples < 0) max_speech_samples = INT_MAX / 2;
  }
  // A silence this long inside a segment marks where it may be split when it reaches the maximum
  // length (Silero's own value).
  const int min_silence_samples_at_max_speech = sample_rate * 98 / 1000;

  // Speech ends when the probability falls below a lower threshold (hysteresis).
  float neg_threshold = threshold - 0.15f;
  if (neg_threshold < 0.01f) neg_threshold = 0.01f;

  std::vector<SpeechSegment> speeches;
  bool is_speech_segment = false;
  int temp_end = 0;
  int prev_end = 0;
  int next_start = 0;
  int curr_speech_start = 0;
  bool has_curr_speech = false;

  for (int i = 0; i < n_probs; i++) {
    const float curr_prob = probs[i];
    const int curr_sample = n_window * i;

    if ((curr_prob >= threshold) && temp_end) {
      temp_end = 0;
      if (next_start < prev_end) next_start = curr_sample;
    }

    if ((curr_prob >= threshold) && !is_speech_segment) {
      is_speech_segment = true;
      curr_speech_start = curr_sample;
      has_curr_speech = true;
      continue;
    }

    if (is_speech_segment && (curr_sample - curr_speech_start) > max_speech_samples) {
      if (prev_end) {
        speeches.push_back({curr_speech_start, prev_end});
        has_curr_speech = true;
        if (next_start < prev_end) {
          is_speech_segment = false;
          has_curr_speech = false;
        } else {
          curr_speech_start = next_start;
        }
        prev_end = next_start = temp_end = 0;
      } else {
        speeches.push_back({curr_speech_start, curr_sample});
        prev_end = next_start = temp_end = 0;
        is_speech_segment = false;
        has_curr_speech = false;
        continue;
      }
    }

    if ((curr_prob < neg_threshold) && is_speech_segment) {
      if (!temp_end) temp_end = curr_sample;
      if ((curr_sample - temp_end) > min_silence_samples_at_max_speech) prev_end = temp_end;
      if ((curr_sample - temp_end) < min_silence_samples) {
        continue;
      } else {
        if ((temp_end - curr_speech_start) > min_speech_samples) speeches.push_back({curr_speech_start, temp_end});
        prev_end = next_start = temp_end = 0;
        is_speech_segment = false;
        has_curr_speech = false;
        continue;
      }
    }
  }

  if (has_curr_speech && (audio_length_samples - curr_speech_start) > min_speech_samples) {
    speeches.push_back({curr_speech_start, audio_length_samples});
  }

  // Merge segments separated by less than 200 ms.
  if (speeches.size() > 1) {
    const int max_merge_gap_samples = sample_rate * 200 / 1000;
    for (int i = 0; i < static_cast<int>(speeches.size()) - 1; i++) {
      if (speeches[i + 1].startSample - speeches[i].endSample < max_merge_gap_samples) {
        speeches[i].endSample = speeches[i + 1].endSample;
        speeches.erase(speeches.begin() + i + 1);
        i--;
      }
    }
  }

  for (int i = 0; i < static_cast<int>(speeches.size()); i++) {
    if (speeches[i].endSample - speeches[i].startSample < min_speech_samples) {
      speeches.erase(speeches.begin() + i);
      i--;
    }
  }

  // Padding: a gap shorter than two pads is split between its neighbours.
  const int count = static_cast<int>(speeches.size());
  for (int i = 0; i < count; i++) {
    if (i == 0) {
      speeches[i].startSample = (speeches[i].startSample > speech_pad_samples) ? (speeches[i].startSample - speech_pad_samples) : 0;
    }
    if (i < count - 1) {
      const int silence_duration = speeches[i + 1].startSample - speeches[i].endSample;
      if (silence_duration < 2 * speech_pad_samples) {
        speeches[i].endSample += silence_duration / 2;
        speeches[i + 1].startSample =
            (speeches[i + 1].startSample > silence_duration / 2) ? (speeches[i + 1].startSample - silence_duration / 2) : 0;
      } else {
        speeches[i].endSample = (speeches[i].endSample + speech_pad_samples < audio_length_samples)
                                    ? (speeches[i].endSample + speech_pad_samples)
                                    : audio_length_samples;
        speeches[i + 1].startSample =
            (speeches[i + 1].startSample > speech_pad_samples) ? (speeches[i + 1].startSample - speech_pad_samples) : 0;
      }
    } else {
      speeches[i].endSample = (speeches[i].endSample + speech_pad_samples < audio_length_samples)
                                  ? (speeches[i].endSample + speech_pad_samples)
                                  : audio_length_samples;
    }
  }
  return speeches;
}

}  // namespace svc
