// SPDX-License-Identifier: MIT
#include "launch/launch_variants.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <thread>

#include "core/driver_queries.h"
#include "core/immortal.h"
#include "core/layer_api.h"
#include "core/logger.h"
#include "devices/device_strategy.h"
#include "launch/kernel_records.h"
#include "launch/register_cap.h"

namespace isg {
namespace {

// Sizes one program may have variants for: each is a build; a program launched at many sizes
// keeps the general kernel for the rest.
constexpr std::size_t kMaxVariantsPerProgram = 8;

std::string shapeText(const WorkGroupShape& s) {
  return std::to_string(s[0]) + " x " + std::to_string(s[1]) + " x " + std::to_string(s[2]);
}

// One thread that builds variants in the order launches asked for them. Process exit waits for
// the build under way (an atexit handler, which runs before the drivers unload) and drops the
// rest: a thread inside a driver while the driver tears down would take the process with it.
class Builder {
 public:
  void submit(std::shared_ptr<ProgramVariants> program, const WorkGroupShape& shape,
              cl_device_id device) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    jobs_.push_back({std::move(program), shape, device});
    if (!started_) {
      started_ = true;
      std::atexit([] { builder().stop(); });
      thread_ = std::thread([this] { work(); });
    }
    wake_.notify_one();
  }

  static Builder& builder();

 private:
  struct Job {
    std::shared_ptr<ProgramVariants> program;
    WorkGroupShape shape;
    cl_device_id device;
  };

  void work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      Job job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job.program->build(job.shape, job.device);
      job = Job{};  // the last reference may release driver objects: outside the lock
      lock.lock();
    }
  }

  void stop() {
    std::deque<Job> dropped;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      dropped.swap(jobs_);
      wake_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  std::thread thread_;
  bool started_ = false;
  bool stopping_ = false;
};

Immortal<Builder> g_builder;
Builder& Builder::builder() { return g_builder.get(); }

// Whether every kernel of a program of strategy `s` that can runs variants (for speed); else
// only those whose results depend on the launch's shape do (variantsCanServe).
bool strategyGains(Strategy s) {
  switch (config().LAUNCH_VARIANTS) {
    case VariantChoice::Off:
      return false;
    case VariantChoice::Auto:
      return s == Strategy::NvidiaPtx;
    case VariantChoice::On:
    case VariantChoice::Wait:
      return s != Strategy::Native;
  }
  return false;
}

}  // namespace

VariantProgram::~VariantProgram() {
  if (program && next().clReleaseProgram) next().clReleaseProgram(program);
}

bool variantsCanServe(const KernelManifest& m, bool forSpeed) {
  if (m.reqdWorkGroupSize[0] != 0 || m.families.empty() || !m.blockImageArgs.empty()) return false;
  if (!forSpeed && !m.shapeDependentResult) return false;
  // A variant runs uniform launches only, whose launch shape (the layer's PTX) is the one its
  // kernel gets when it is made.
  return std::all_of(m.hiddenArgs.begin(), m.hiddenArgs.end(), [](const HiddenArg& h) {
    return h.kind == HiddenArg::Kind::LocalScratch || h.kind == HiddenArg::Kind::LaunchShape;
  });
}

bool variantAwaited(const KernelManifest& m) {
  return config().LAUNCH_VARIANTS == VariantChoice::Wait || m.shapeDependentResult;
}

std::shared_ptr<ProgramVariants> programVariantsFor(cl_program app, const RewriteInput& input,
                                                    const RewriteResult& rewritten) {
  // Source for the driver's compiler, or PTX of the layer's front end from source (not from
  // SPIR-V: `input` is the source's).
  const bool ptx = rewritten.form == RewriteResult::Form::Ptx && !input.source.empty();
  if (rewritten.status != RewriteResult::Status::Rewritten ||
      (rewritten.form != RewriteResult::Form::Source && !ptx) || input.compiledObject ||
      config().LAUNCH_VARIANTS == VariantChoice::Off || rewritten.strategy == Strategy::Native ||
      !next().clRetainContext || !next().clBuildProgram || (ptx && !next().clCreateProgramWithBinary))
    return nullptr;
  // On the layer's front end a variant is a second Clang and NVPTX build of the program, which
  // pays only where it settles a result.
  const bool forSpeed = strategyGains(rewritten.strategy) && !ptx;
  // Asked first: most rewritten programs get no variants, and should not pay for a copy of
  // their input and a retained context.
  if (std::none_of(rewritten.kernels.begin(), rewritten.kernels.end(),
                   [&](const KernelManifest& m) { return variantsCanServe(m, forSpeed); }))
    return nullptr;
  cl_context context = nullptr;
  if (programValue(app, CL_PROGRAM_CONTEXT, &context) != CL_SUCCESS || !context) return nullptr;
  return std::make_shared<ProgramVariants>(
      input, rewritten.diskFiles, context, forSpeed,
      ptx ? std::optional<std::string>(rewritten.options) : std::nullopt);
}

ProgramVariants::ProgramVariants(const RewriteInput& input, std::vector<SourceFile> diskFiles,
                                 cl_context context, bool forSpeed,
                                 std::optional<std::string> ptxOptions)
    : input_(input), diskFiles_(std::move(diskFiles)), context_(context), forSpeed_(forSpeed),
      ptxOptions_(std::move(ptxOptions)) {
  next().clRetainContext(context_);
}

ProgramVariants::~ProgramVariants() {
  entries_.clear();  // the programs first, then the context they belong to
  if (next().clReleaseContext) next().clReleaseContext(context_);
}

std::shared_ptr<const VariantProgram> ProgramVariants::get(const WorkGroupShape& shape,
                                                           cl_device_id device, bool wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  const VariantKey key{shape, device};
  auto at = entries_.find(key);
  if (at == entries_.end()) {
    if (entries_.size() >= kMaxVariantsPerProgram) return nullptr;
    entries_.emplace(key, Entry{});
    lock.unlock();
    if (!wait) {
      Builder::builder().submit(shared_from_this(), shape, device);
      return nullptr;
    }
    build(shape, device);
    lock.lock();
    at = entries_.find(key);
  }
  if (wait) done_.wait(lock, [&] { return at->second.state != Entry::State::Building; });
  return at->second.state == Entry::State::Ready ? at->second.built : nullptr;
}

void ProgramVariants::build(const WorkGroupShape& shape, cl_device_id device) {
  std::shared_ptr<const VariantProgram> built = compile(shape, device);
  std::lock_guard<std::mutex> lock(mutex_);
  Entry& e = entries_[{shape, device}];
  e.state = built ? Entry::State::Ready : Entry::State::Failed;
  e.built = std::move(built);
  done_.notify_all();
}

std::shared_ptr<const VariantProgram> ProgramVariants::compile(const WorkGroupShape& shape,
                                                               cl_device_id device) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  RewriteInput in = input_;
  std::copy(shape.begin(), shape.end(), in.assumedWorkGroupSize);
  RewriteResult r;
  if (ptxOptions_) {
    offerLayerExtensions({device}, &in.traits);  // as the general build's (viaLayerFrontEnd)
    r = compileForNvidia(in);
  } else {
    r = rewriteProgram(in);
  }
  const RewriteResult::Form form = ptxOptions_ ? RewriteResult::Form::Ptx : RewriteResult::Form::Source;
  if (r.status != RewriteResult::Status::Rewritten || r.form != form) {
    ISG_LOG_INFO("the launch variant for work-groups of " << shapeText(shape)
                                                          << " was not written: " << r.log);
    return nullptr;
  }
  auto sameFiles = [](const std::vector<SourceFile>& a, const std::vector<SourceFile>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const SourceFile& x, const SourceFile& y) {
                        return x.name == y.name && x.text == y.text;
                      });
  };
  if (!sameFiles(r.diskFiles, diskFiles_)) {
    ISG_LOG_INFO("the launch variant for work-groups of "
                 << shapeText(shape)
                 << " is not built: a header the program includes from disk changed since its "
                    "build; the general kernels run");
    return nullptr;
  }
  const Clock::time_point rewritten = Clock::now();
  cl_int err = CL_SUCCESS;
  auto built = std::make_shared<VariantProgram>();
  if (ptxOptions_) {
    const size_t length = r.binary.size();
    const auto* bytes = reinterpret_cast<const unsigned char*>(r.binary.data());
    built->program = next().clCreateProgramWithBinary(context_, 1, &device, &length, &bytes, nullptr, &err);
  } else {
    built->program = createDriverProgramIn(context_, r.source, &err);
  }
  if (built->program)
    err = next().clBuildProgram(built->program, 1, &device, (ptxOptions_ ? *ptxOptions_ : r.options).c_str(),
                                nullptr, nullptr);
  if (!built->program || err != CL_SUCCESS) {
    std::string log;
    if (built->program) programBuildString(built->program, device, CL_PROGRAM_BUILD_LOG, &log);
    ISG_LOG_INFO("the launch variant for work-groups of " << shapeText(shape) << " did not build ("
                                                          << err << "); the general kernels run:\n"
                                                          << log);
    return nullptr;
  }
  built->kernels = std::move(r.kernels);
  auto ms = [](Clock::duration d) {
    return std::chrono::duration_cast<std::chrono::microseconds>(d).count() / 1000.0;
  };
  ISG_LOG_INFO("built the launch variant for work-groups of "
               << shapeText(shape) << " in " << ms(Clock::now() - start) << " ms (rewrite "
               << ms(rewritten - start) << " ms)");
  return built;
}

void KernelVariants::release() {
  for (One& v : kernels)
    if (v.kernel && next().clReleaseKernel) next().clReleaseKernel(v.kernel);
  kernels.clear();
}

const KernelVariants::One* variantFor(KernelRecord& record, const WorkGroupShape& shape,
                                      cl_device_id device) {
  KernelVariants& v = record.variants;
  if (!v.program || !record.cap.args || record.execInfoSet.load(std::memory_order_acquire))
    return nullptr;
  const KernelVariants::One* found = nullptr;
  for (const KernelVariants::One& one : v.kernels)
    if (one.shape == shape && one.device == device) found = &one;
  if (!found) {
    if (std::find(v.refused.begin(), v.refused.end(), VariantKey{shape, device}) != v.refused.end())
      return nullptr;
    std::shared_ptr<const VariantProgram> built =
        v.program->get(shape, device, variantAwaited(record.manifest));
    if (!built) return nullptr;
    // record.manifest can serve (variants.program is set only then); the variant's must set
    // no other hidden arguments.
    const KernelManifest* manifest = findManifest(built->kernels, record.manifest.name);
    cl_int err = CL_INVALID_KERNEL_NAME;
    cl_kernel k = manifest && manifest->hiddenArgs.size() == record.manifest.hiddenArgs.size()
                      ? next().clCreateKernel(built->program, record.manifest.name.c_str(), &err)
                      : nullptr;
    if (k && (err = setLaunchShape(k, *manifest, kUniformLaunch)) != CL_SUCCESS) {
      next().clReleaseKernel(k);
      k = nullptr;
    }
    if (!k) {
      refuseVariant(record, shape, device, err);
      return nullptr;
    }
    ISG_LOG_INFO("kernel " << record.manifest.name
                           << ": runs its launch variant for work-groups of " << shapeText(shape));
    v.kernels.push_back({shape, device, k, manifest, std::move(built)});
    found = &v.kernels.back();
  }
  // The application's values as it set them last; one the driver refuses leaves the launch to
  // the general kernel, whose answer it is.
  if (replayArgs(*record.cap.args, found->kernel) != CL_SUCCESS) return nullptr;
  return found;
}

void refuseVariant(KernelRecord& record, const WorkGroupShape& shape, cl_device_id device,
                   cl_int err) {
  KernelVariants& v = record.variants;
  ISG_LOG_INFO("kernel " << record.manifest.name << ": its launch variant for work-groups of "
                         << shapeText(shape) << " cannot run (" << err
                         << "); the general kernel serves them");
  v.refused.emplace_back(shape, device);
  for (auto one = v.kernels.begin(); one != v.kernels.end(); ++one) {
    if (one->shape != shape || one->device != device) continue;
    if (next().clReleaseKernel) next().clReleaseKernel(one->kernel);
    v.kernels.erase(one);
    break;
  }
}

}  // namespace isg
