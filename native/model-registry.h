// Process-wide registry of loaded whisper models. A model file is read once per process and shared
// by every worker thread; each holder keeps a shared_ptr, and the weights are freed with the last one.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <map>

#include "whisper.h"
#include "whisper-state.h"

namespace svc {

struct ModelLoadOptions {
  bool useGpu = true;
  bool flashAttn = true;
  std::string dtw = "none";  // alignment-heads preset name, or "top_most", or "none"
  int dtwTopN = -1;
  std::string Key(const std::string& path) const;
};

class LoadedModel {
 public:
  LoadedModel(whisper_context* ctx, std::string path, ModelLoadOptions options);
  ~LoadedModel();
  LoadedModel(const LoadedModel&) = delete;
  LoadedModel& operator=(const LoadedModel&) = delete;

  whisper_context* context() const { return ctx_; }
  const std::string& path() const { return path_; }
  const ModelLoadOptions& options() const { return options_; }
  /** Decoding states kept between calls on this model (whisper-state.h). */
  WhisperStatePool& states() { return states_; }
  const WhisperStatePool& states() const { return states_; }

 private:
  whisper_context* ctx_;
  std::string path_;
  ModelLoadOptions options_;
  WhisperStatePool states_;
};

class ModelRegistry {
 public:
  // Returns the resident model for (path, options) or loads it. Throws std::runtime_error on failure.
  static std::shared_ptr<LoadedModel> Acquire(const std::string& path, const ModelLoadOptions& options);
  static uint64_t LoadCount();
  static size_t ResidentCount();
  static std::atomic<int64_t>& References();

 private:
  static std::mutex mutex_;
  static std::map<std::string, std::weak_ptr<LoadedModel>> models_;
  static std::atomic<uint64_t> loads_;
};

}  // namespace svc
