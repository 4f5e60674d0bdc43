#include "vad-model-registry.h"

#include <stdexcept>

#include "vad-model-file.h"

namespace svc {

namespace {

std::atomic<uint64_t> g_loads{0};
std::atomic<int64_t> g_resident{0};
std::atomic<int64_t> g_contexts{0};
std::atomic<int64_t> g_references{0};

// Idle contexts kept per model beyond that are freed on return: more calls than this at once are rare
// (one per pool worker). A context allocates about 83 MB, almost all of it one table whisper.cpp's VAD
// reserves and never touches (traced with gdb on mmap, 2026-11-27): address space, not resident memory,
// so keeping four costs little RSS but shows in malloc's statistics.
constexpr size_t kMaxIdleContexts = 4;

VadContextPtr NewContext(const std::vector<uint8_t>& bytes) {
  VadContextPtr ctx = CreateVadContext(bytes);
  g_contexts++;
  return ctx;
}

}  // namespace

void VadContextDeleter::operator()(whisper_vad_context* ctx) const {
  whisper_vad_free(ctx);
  g_contexts--;
}

VadContextLease::VadContextLease(std::shared_ptr<VadModel> model, VadContextPtr ctx)
    : model_(std::move(model)), ctx_(std::move(ctx)) {}

VadContextLease::~VadContextLease() {
  if (model_ && ctx_) model_->Return(std::move(ctx_));
}

VadModel::VadModel(std::string path, std::vector<uint8_t> bytes, VadModelInfo info, VadContextPtr first)
    : path_(std::move(path)), bytes_(std::move(bytes)), info_(std::move(info)) {
  idle_.push_back(std::move(first));
  g_resident++;
}

VadModel::~VadModel() {
  idle_.clear();
  g_resident--;
}

VadContextLease VadModel::Checkout() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      VadContextPtr ctx = std::move(idle_.back());
      idle_.pop_back();
      return VadContextLease(shared_from_this(), std::move(ctx));
    }
  }
  // Built outside the lock: a few milliseconds that other calls returning contexts need not wait for.
  return VadContextLease(shared_from_this(), NewContext(bytes_));
}

void VadModel::Return(VadContextPtr ctx) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (idle_.size() < kMaxIdleContexts) idle_.push_back(std::move(ctx));
}

std::mutex VadModelRegistry::mutex_;
std::map<std::string, std::weak_ptr<VadModel>> VadModelRegistry::models_;

std::shared_ptr<VadModel> VadModelRegistry::Acquire(const std::string& path) {
  // Held across the load so two threads asking for the same file never read it twice.
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = models_.find(path);
  if (it != models_.end()) {
    if (auto existing = it->second.lock()) return existing;
  }
  std::vector<uint8_t> bytes = ReadVadModelFile(path);
  VadModelInfo info = CheckVadModelBytes(bytes);
  // The first context is made now, so a file whisper.cpp rejects fails the load, not the first call.
  VadContextPtr first = NewContext(bytes);
  g_loads++;
  auto model = std::make_shared<VadModel>(path, std::move(bytes), std::move(info), std::move(first));
  models_[path] = model;
  return model;
}

uint64_t VadModelRegistry::LoadCount() { return g_loads.load(); }
size_t VadModelRegistry::ResidentCount() { return static_cast<size_t>(g_resident.load()); }
int64_t VadModelRegistry::ContextCount() { return g_contexts.load(); }
std::atomic<int64_t>& VadModelRegistry::References() { return g_references; }

}  // namespace svc
