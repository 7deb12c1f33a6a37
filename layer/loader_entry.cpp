// SPDX-License-Identifier: MIT
// The four symbols the ICD loaders look for, and the dispatch tables behind them.
#include <CL/cl_layer.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include <dlfcn.h>
#include <unistd.h>

#include "capture/enqueue_capture.h"
#include "core/layer_api.h"

// Headers before the Khronos loader's clInitLayerWithProperties lack this type; repeating a
// typedef of the same type is legal C++ when they have it.
typedef cl_properties cl_layer_properties;

#define ISG_EXPORT extern "C" __attribute__((visibility("default")))

namespace isg {
namespace detail {

DispatchTable g_nextDispatch;  // what the layer forwards to; entries beyond num_entries stay NULL
Config g_config;

}  // namespace detail
namespace {

using detail::DispatchTable;
using detail::g_config;
using detail::g_nextDispatch;
using detail::kMaxDispatchEntries;

DispatchTable g_layerDispatch;  // what the loader calls

// The loader must hand over at least every entry the layer replaces.
constexpr std::size_t minimumEntries() {
  std::size_t last = 0;
#define ISG_ENTRY_END(name) \
  last = std::max(last, offsetof(cl_icd_dispatch, name) / sizeof(void*) + 1);
  ISG_INTERCEPTED_ENTRIES(ISG_ENTRY_END)
#undef ISG_ENTRY_END
  return last;
}

void applyConfig() {
  std::vector<std::string> problems, nonDefaults;
  g_config =
      loadConfig([](const char* name) { return std::getenv(name); }, &problems, &nonDefaults);
  configureLog(g_config.LOG, g_config.LOG_FILE);
  Dl_info self{};
  ISG_LOG_INFO("intel-subgroups-layer " ISG_VERSION " ("
               << (dladdr(reinterpret_cast<void*>(&applyConfig), &self) && self.dli_fname
                       ? self.dli_fname
                       : "path unknown")
               << ")");
  for (const std::string& p : problems) ISG_LOG_WARNING(p);
  for (const std::string& c : nonDefaults) ISG_LOG_INFO("control " << c << " (not the default)");
  // A misspelt control would otherwise be silently without effect.
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    bool typo = false;
    const std::string note = unknownControlNote(entry.substr(0, entry.find('=')), &typo);
    if (note.empty()) continue;
    if (typo) ISG_LOG_WARNING(note);
    else ISG_LOG_INFO(note);
  }
}

cl_int initLayer(cl_uint num_entries, const cl_icd_dispatch* target_dispatch,
                 cl_uint* num_entries_ret, const cl_icd_dispatch** layer_dispatch_ret) {
  if (!target_dispatch || !num_entries_ret || !layer_dispatch_ret) return CL_INVALID_VALUE;
  applyConfig();
  if (num_entries < minimumEntries()) {
    ISG_LOG_ERROR("the loader offers " << num_entries << " dispatch entries; the layer needs "
                                       << minimumEntries());
    return CL_INVALID_VALUE;
  }
  const std::size_t count = std::min<std::size_t>(num_entries, kMaxDispatchEntries);
  std::memset(&g_nextDispatch, 0, sizeof g_nextDispatch);
  std::memcpy(g_nextDispatch.entries, target_dispatch, count * sizeof(void*));
  // Unintercepted entries are the target's own: the loader calls straight through.
  g_layerDispatch = g_nextDispatch;
  if (g_config.DISABLE && !g_config.CAPTURE_DIR.empty()) {
    // Capture observes without rewriting: only its entries are the layer's (capture/enqueue_capture.h).
#define ISG_FILL_CAPTURE_ENTRY(name) g_layerDispatch.table.name = &name##_layer;
    ISG_CAPTURE_ENTRIES(ISG_FILL_CAPTURE_ENTRY)
#undef ISG_FILL_CAPTURE_ENTRY
    ISG_LOG_INFO("ISG_DISABLE: no rewriting; intercepting only what ISG_CAPTURE_DIR needs");
  } else if (g_config.DISABLE) {
    ISG_LOG_INFO("ISG_DISABLE: pure pass-through");
  } else {
#define ISG_FILL_ENTRY(name) g_layerDispatch.table.name = &name##_layer;
    ISG_INTERCEPTED_ENTRIES(ISG_FILL_ENTRY)
#undef ISG_FILL_ENTRY
  }
  if (!g_config.CAPTURE_DIR.empty()) useCapturingArgEntries(g_layerDispatch.table);
  // clSetKernelArg's entry forwards without asking whether the target has one (kernel_args.cpp):
  // a target without it (no driver of OpenCL 1.0 on) keeps its NULL entry.
  if (!g_nextDispatch.table.clSetKernelArg) g_layerDispatch.table.clSetKernelArg = nullptr;
  *num_entries_ret = static_cast<cl_uint>(count);
  *layer_dispatch_ret = &g_layerDispatch.table;
  ISG_LOG_DEBUG("initialised with " << count << " dispatch entries");
  return CL_SUCCESS;
}

// The Khronos loader calls clDeinitLayer from its own destructor, before it unloads the vendors and
// the layer. The layer is linked -z nodelete: a thread of the application may still be inside it
// (a build runs for seconds), and its records must outlive that thread, so unloading would unmap
// code in use. What clInitLayer opened, the log file, is closed here; a later line goes to stderr.
cl_int deinitLayer() {
  ISG_LOG_INFO("the loader deinitialises the layer");
  configureLog(g_config.LOG, std::string());
  return CL_SUCCESS;
}

}  // namespace

}  // namespace isg

ISG_EXPORT CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(cl_layer_info param_name,
                                                          size_t param_value_size,
                                                          void* param_value,
                                                          size_t* param_value_size_ret) {
  static const char kLayerName[] = "IntelSubgroupsLayer " ISG_VERSION " (cl_intel_subgroups for any driver)";
  const void* data = nullptr;
  size_t size = 0;
  cl_layer_api_version version = CL_LAYER_API_VERSION_100;
  switch (param_name) {
    case CL_LAYER_API_VERSION:
      data = &version;
      size = sizeof version;
      break;
    case CL_LAYER_NAME:
      data = kLayerName;
      size = sizeof kLayerName;
      break;
    default:
      return CL_INVALID_VALUE;
  }
  if (param_value) {
    if (param_value_size < size) return CL_INVALID_VALUE;
    std::memcpy(param_value, data, size);
  }
  if (param_value_size_ret) *param_value_size_ret = size;
  return CL_SUCCESS;
}

ISG_EXPORT CL_API_ENTRY cl_int CL_API_CALL clInitLayer(cl_uint num_entries,
                                                       const cl_icd_dispatch* target_dispatch,
                                                       cl_uint* num_entries_ret,
                                                       const cl_icd_dispatch** layer_dispatch_ret) {
  return isg::guardedEntry("clInitLayer", [&] {
    return isg::initLayer(num_entries, target_dispatch, num_entries_ret, layer_dispatch_ret);
  });
}

ISG_EXPORT CL_API_ENTRY cl_int CL_API_CALL clInitLayerWithProperties(
    cl_uint num_entries, const cl_icd_dispatch* target_dispatch, cl_uint* num_entries_ret,
    const cl_icd_dispatch** layer_dispatch_ret, const cl_layer_properties* properties) {
  return isg::guardedEntry("clInitLayerWithProperties", [&] {
    cl_int err = isg::initLayer(num_entries, target_dispatch, num_entries_ret, layer_dispatch_ret);
    // No property is defined for layers yet; an unknown one must not cost the application the
    // layer, so it is only noted.
    for (const cl_layer_properties* p = properties; p && *p; p += 2)
      ISG_LOG_INFO("clInitLayerWithProperties: ignoring property 0x" << std::hex << *p);
    return err;
  });
}

ISG_EXPORT CL_API_ENTRY cl_int CL_API_CALL clDeinitLayer(void) {
  return isg::guardedEntry("clDeinitLayer", [] { return isg::deinitLayer(); });
}
