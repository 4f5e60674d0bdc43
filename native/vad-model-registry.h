// Process-wide registry of Silero VAD models (whisper.cpp's whisper_vad_* API).
//
// Unlike a whisper_context, a whisper_vad_context cannot be shared by concurrent calls: it holds the
// weights *and* the LSTM's hidden and cell state, which every detection overwrites. whisper.cpp has no
// way to share the weights between VAD contexts, but they are small (under 1 MB), so each registry
// entry (one per file) keeps a small free-list of whole contexts: a call checks one out for its
// duration and returns it after, and a context is created only when every existing one is busy. The
// file is read once, its bytes kept in memory and checked before whisper.cpp sees them; every further
// context is built from those same bytes, so a file replaced or damaged on disk while the service runs
// cannot reach whisper.cpp's loader. Everything is freed with the last reference to the entry (handles
// and in-flight calls hold it).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "whisper.h"

namespace svc {

struct VadContextDeleter {
  void operator()(whisper_vad_context* ctx) const;
};
using VadContextPtr = std::unique_ptr<whisper_vad_context, VadContextDeleter>;

/** What the file header says; whisper.cpp keeps these private to the context. */
struct VadModelInfo {
  std::string type;     // "silero-16k"
  std::string version;  // Silero's release, e.g. "6.2.0"
  int frameSamples;     // samples per probability (whisper.cpp's n_window: 512 at 16 kHz)
  int contextSamples;   // Silero's context (n_context: 64); whisper.cpp reads but does not use it
};

class VadModel;

/** One context checked out of a VadModel for one call; returns it to the free-list when destroyed. */
class VadContextLease {
 public:
  VadContextLease(std::shared_ptr<VadModel> model, VadContextPtr ctx);
  ~VadContextLease();
  VadContextLease(VadContextLease&&) = default;
  VadContextLease(const VadContextLease&) = delete;
  VadContextLease& operator=(const VadContextLease&) = delete;

  whisper_vad_context* get() const { return ctx_.get(); }
  /** After a failed call the context's state is unknown: free it instead of reusing it. */
  void Discard() { ctx_.reset(); }

 private:
  std::shared_ptr<VadModel> model_;
  VadContextPtr ctx_;
};

class VadModel : public std::enable_shared_from_this<VadModel> {
 public:
  VadModel(std::string path, std::vector<uint8_t> bytes, VadModelInfo info, VadContextPtr first);
  ~VadModel();
  VadModel(const VadModel&) = delete;
  VadModel& operator=(const VadModel&) = delete;

  const std::string& path() const { return path_; }
  const VadModelInfo& info() const { return info_; }

  /** An idle context, or a new one when all are busy. Throws std::runtime_error if none can be made. */
  VadContextLease Checkout();

 private:
  friend class VadContextLease;
  void Return(VadContextPtr ctx);

  std::string path_;
  std::vector<uint8_t> bytes_;
  VadModelInfo info_;
  std::mutex mutex_;
  std::vector<VadContextPtr> idle_;
};

class VadModelRegistry {
 public:
  /** The resident model for `path`, or reads and checks the file. Throws std::runtime_error on failure. */
  static std::shared_ptr<VadModel> Acquire(const std::string& path);
  /** Times a VAD file was read from disk. */
  static uint64_t LoadCount();
  static size_t ResidentCount();
  /** whisper_vad_contexts alive, idle or checked out, across all models. */
  static int64_t ContextCount();
  static std::atomic<int64_t>& References();

 private:
  static std::mutex mutex_;
  static std::map<std::string, std::weak_ptr<VadModel>> models_;
};

}  // namespace svc
