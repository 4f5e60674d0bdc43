#include "compute-threads.h"

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace svc {
namespace {

class ComputeThread {
 public:
  ComputeThread() : thread_([this] { Loop(); }) { thread_.detach(); }

  void Run(const std::function<void()>& work) {
    std::unique_lock<std::mutex> lock(mutex_);
    work_ = &work;
    error_ = nullptr;
    done_ = false;
    wake_.notify_one();
    finished_.wait(lock, [this] { return done_; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return work_ != nullptr; });
      const std::function<void()>* work = work_;
      lock.unlock();
      std::exception_ptr error;
      try {
        (*work)();
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      work_ = nullptr;
      error_ = error;
      done_ = true;
      finished_.notify_one();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  const std::function<void()>* work_ = nullptr;
  std::exception_ptr error_;
  bool done_ = false;
  // Detached and never destroyed: the process may exit (or a worker isolate unload) while threads
  // wait, and nothing must block or touch freed memory then.
  std::thread thread_;
};

std::mutex pool_mutex;
// Idle threads, most recently used last. Threads are created on demand and never destroyed.
std::vector<ComputeThread*>* idle = new std::vector<ComputeThread*>();

}  // namespace

void RunOnComputeThread(const std::function<void()>& work) {
  ComputeThread* thread = nullptr;
  {
    std::lock_guard<std::mutex> lock(pool_mutex);
    if (!idle->empty()) {
      thread = idle->back();
      idle->pop_back();
    }
  }
  if (thread == nullptr) thread = new ComputeThread();
  struct ReturnToPool {
    ComputeThread* thread;
    ~ReturnToPool() {
      std::lock_guard<std::mutex> lock(pool_mutex);
      idle->push_back(thread);
    }
  } give_back{thread};
  thread->Run(work);
}

}  // namespace svc
