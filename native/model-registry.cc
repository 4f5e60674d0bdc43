#include "model-registry.h"

#include <stdexcept>
#include <unordered_map>

namespace svc {

std::mutex ModelRegistry::mutex_;
std::map<std::string, std::weak_ptr<LoadedModel>> ModelRegistry::models_;
std::atomic<uint64_t> ModelRegistry::loads_{0};

namespace {

std::atomic<int64_t> g_references{0};
std::atomic<int64_t> g_resident{0};

whisper_alignment_heads_preset PresetFromName(const std::string& name) {
  static const std::unordered_map<std::string, whisper_alignment_heads_preset> presets = {
      {"none", WHISPER_AHEADS_NONE},           {"top_most", WHISPER_AHEADS_N_TOP_MOST},
      {"tiny", WHISPER_AHEADS_TINY},           {"tiny.en", WHISPER_AHEADS_TINY_EN},
      {"base", WHISPER_AHEADS_BASE},           {"base.en", WHISPER_AHEADS_BASE_EN},
      {"small", WHISPER_AHEADS_SMALL},         {"small.en", WHISPER_AHEADS_SMALL_EN},
      {"medium", WHISPER_AHEADS_MEDIUM},       {"medium.en", WHISPER_AHEADS_MEDIUM_EN},
      {"large.v1", WHISPER_AHEADS_LARGE_V1},   {"large.v2", WHISPER_AHEADS_LARGE_V2},
      {"large.v3", WHISPER_AHEADS_LARGE_V3},   {"large.v3.turbo", WHISPER_AHEADS_LARGE_V3_TURBO},
  };
  auto it = presets.find(name);
  if (it == presets.end()) throw std::invalid_argument("unknown DTW alignment-heads preset: " + name);
  return it->second;
}

}  // namespace

std::string ModelLoadOptions::Key(const std::string& path) const {
  return path + "|gpu=" + (useGpu ? "1" : "0") + "|fa=" + (flashAttn ? "1" : "0") + "|dtw=" + dtw + ":" +
         std::to_string(dtwTopN);
}

LoadedModel::LoadedModel(whisper_context* ctx, std::string path, ModelLoadOptions options)
    : ctx_(ctx), path_(std::move(path)), options_(std::move(options)), states_(ctx) {
  g_resident++;
}

LoadedModel::~LoadedModel() {
  // States refer to the context: freed first.
  states_.Clear();
  whisper_free(ctx_);
  g_resident--;
}

std::shared_ptr<LoadedModel> ModelRegistry::Acquire(const std::string& path, const ModelLoadOptions& options) {
  const std::string key = options.Key(path);
  // Held across the load so two threads asking for the same file never read it twice.
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = models_.find(key);
  if (it != models_.end()) {
    if (auto existing = it->second.lock()) return existing;
  }
  whisper_context_params params = whisper_context_default_params();
  params.use_gpu = options.useGpu;
  params.flash_attn = options.flashAttn;
  const whisper_alignment_heads_preset preset = PresetFromName(options.dtw);
  if (preset != WHISPER_AHEADS_NONE) {
    params.dtw_token_timestamps = true;
    params.dtw_aheads_preset = preset;
    params.dtw_n_top = options.dtwTopN;
  }
  whisper_context* ctx = whisper_init_from_file_with_params_no_state(path.c_str(), params);
  if (ctx == nullptr) throw std::runtime_error("whisper.cpp could not load the model file");
  loads_++;
  auto model = std::make_shared<LoadedModel>(ctx, path, options);
  models_[key] = model;
  return model;
}

uint64_t ModelRegistry::LoadCount() { return loads_.load(); }
size_t ModelRegistry::ResidentCount() { return static_cast<size_t>(g_resident.load()); }
std::atomic<int64_t>& ModelRegistry::References() { return g_references; }

}  // namespace svc
