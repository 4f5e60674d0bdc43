#include "compute-threads.h"

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace svc {
namespace {

// How much lower a background thread's priority is: a foreground thread sharing its core gets about
// nine tenths of it (CFS weights 1024 against 110), and the background thread still makes progress.
constexpr int kBackgroundNice = 10;

class ComputeThread {
 public:
  explicit ComputeThread(ComputePriority priority) : thread_([this, priority] { Loop(priority); }) { thread_.detach(); }

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
  void Loop(ComputePriority priority) {
#ifdef __linux__
    // Per thread on Linux (a thread id names one thread); best effort: where it is refused, batch work
    // simply competes as an equal.
    if (priority == ComputePriority::Background) setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kBackgroundNice);
#else
    (void)priority;
#endif
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
#ifdef __GLIBC__
      // A call's whisper state (tens to hundreds of MB) was freed into this thread's malloc arena,
      // which glibc keeps: give the pages back, so that a thread that computed once, and every
      // thread of a pool, does not hold its largest call's memory for the life of the process.
      malloc_trim(0);
#endif
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
// Idle threads of each priority, most recently used last. Threads are created on demand and never destroyed.
std::vector<ComputeThread*>* idle_foreground = new std::vector<ComputeThread*>();
std::vector<ComputeThread*>* idle_background = new std::vector<ComputeThread*>();

}  // namespace

void RunOnComputeThread(const std::function<void()>& work, ComputePriority priority) {
  std::vector<ComputeThread*>* idle = priority == ComputePriority::Background ? idle_background : idle_foreground;
  ComputeThread* thread = nullptr;
  {
    std::lock_guard<std::mutex> lock(pool_mutex);
    if (!idle->empty()) {
      thread = idle->back();
      idle->pop_back();
    }
  }
  if (thread == nullptr) thread = new ComputeThread(priority);
  struct ReturnToPool {
    ComputeThread* thread;
    std::vector<ComputeThread*>* idle;
    ~ReturnToPool() {
      std::lock_guard<std::mutex> lock(pool_mutex);
      idle->push_back(thread);
    }
  } give_back{thread, idle};
  thread->Run(work);
}

}  // namespace svc
