// SPDX-License-Identifier: MIT
// The loader contract (GUIDE §4) checked against the built library directly: what it exports,
// how clInitLayer(WithProperties) fills a table for ocl-icd (149 entries) and the Khronos
// loader (150 entries), and the Khronos loader's clDeinitLayer and unloading. (tests/install
// runs both real loaders over the installed layer.)
#include <CL/cl_layer.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifndef ISG_LAYER_PATH
#error "ISG_LAYER_PATH must name the built layer"
#endif

namespace {

typedef cl_properties cl_layer_properties;
using InitWithProperties = cl_int(CL_API_CALL*)(cl_uint, const cl_icd_dispatch*, cl_uint*,
                                                const cl_icd_dispatch**,
                                                const cl_layer_properties*);
using Deinit = cl_int(CL_API_CALL*)(void);

constexpr size_t kHeaderEntries = sizeof(cl_icd_dispatch) / sizeof(void*);

void fakeEntry() {}

// A target table of `n` entries, every one non-NULL and distinct from the layer's.
struct FakeTarget {
  std::vector<void*> entries;
  explicit FakeTarget(size_t n) : entries(n) {
    for (size_t i = 0; i < n; ++i)
      entries[i] = reinterpret_cast<char*>(reinterpret_cast<void*>(&fakeEntry)) + i;
  }
  const cl_icd_dispatch* table() const {
    return reinterpret_cast<const cl_icd_dispatch*>(entries.data());
  }
};

size_t indexOf(size_t offset) { return offset / sizeof(void*); }

class LoaderInit : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("ISG_DISABLE");
    handle_ = dlopen(ISG_LAYER_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    getInfo_ = reinterpret_cast<pfn_clGetLayerInfo>(dlsym(handle_, "clGetLayerInfo"));
    init_ = reinterpret_cast<pfn_clInitLayer>(dlsym(handle_, "clInitLayer"));
    initWithProperties_ =
        reinterpret_cast<InitWithProperties>(dlsym(handle_, "clInitLayerWithProperties"));
    ASSERT_NE(getInfo_, nullptr);
    ASSERT_NE(init_, nullptr);
    ASSERT_NE(initWithProperties_, nullptr);
    deinit_ = reinterpret_cast<Deinit>(dlsym(handle_, "clDeinitLayer"));
    ASSERT_NE(deinit_, nullptr);
  }
  void TearDown() override {
    unsetenv("ISG_DISABLE");
    if (handle_) dlclose(handle_);
  }

  // Initialises with a fake table of n entries and checks what every loader relies on.
  void expectFilledTable(size_t n, cl_int (*call)(LoaderInit*, cl_uint, const cl_icd_dispatch*,
                                                  cl_uint*, const cl_icd_dispatch**)) {
    FakeTarget target(n);
    cl_uint returned = 0;
    const cl_icd_dispatch* layer = nullptr;
    ASSERT_EQ(call(this, static_cast<cl_uint>(n), target.table(), &returned, &layer), CL_SUCCESS);
    ASSERT_NE(layer, nullptr);
    EXPECT_GE(returned, kHeaderEntries);
    EXPECT_LE(returned, n);
    void* const* entries = reinterpret_cast<void* const*>(layer);
    for (size_t i = 0; i < returned; ++i) EXPECT_NE(entries[i], nullptr) << "entry " << i;
    // Unintercepted entries forward to the target ...
    EXPECT_EQ(entries[indexOf(offsetof(cl_icd_dispatch, clGetPlatformIDs))],
              target.entries[indexOf(offsetof(cl_icd_dispatch, clGetPlatformIDs))]);
    EXPECT_EQ(entries[indexOf(offsetof(cl_icd_dispatch, clCreateBuffer))],
              target.entries[indexOf(offsetof(cl_icd_dispatch, clCreateBuffer))]);
    // ... the layer's own are its functions.
    for (size_t offset :
         {offsetof(cl_icd_dispatch, clBuildProgram), offsetof(cl_icd_dispatch, clGetDeviceInfo),
          offsetof(cl_icd_dispatch, clGetKernelSubGroupInfoKHR),
          offsetof(cl_icd_dispatch, clGetKernelSubGroupInfo)})
      EXPECT_NE(entries[indexOf(offset)], target.entries[indexOf(offset)]);
    // Entries newer than the headers are the target's.
    for (size_t i = kHeaderEntries; i < returned; ++i) EXPECT_EQ(entries[i], target.entries[i]);
  }

  static cl_int callInit(LoaderInit* self, cl_uint n, const cl_icd_dispatch* t, cl_uint* r,
                         const cl_icd_dispatch** l) {
    return self->init_(n, t, r, l);
  }
  static cl_int callInitNullProps(LoaderInit* self, cl_uint n, const cl_icd_dispatch* t, cl_uint* r,
                                  const cl_icd_dispatch** l) {
    return self->initWithProperties_(n, t, r, l, nullptr);
  }
  static cl_int callInitEmptyProps(LoaderInit* self, cl_uint n, const cl_icd_dispatch* t,
                                   cl_uint* r, const cl_icd_dispatch** l) {
    const cl_layer_properties empty[] = {0};
    return self->initWithProperties_(n, t, r, l, empty);
  }

  void* handle_ = nullptr;
  pfn_clGetLayerInfo getInfo_ = nullptr;
  pfn_clInitLayer init_ = nullptr;
  InitWithProperties initWithProperties_ = nullptr;
  Deinit deinit_ = nullptr;
};

TEST_F(LoaderInit, LayerInfoReportsApiVersionAndName) {
  cl_layer_api_version version = 0;
  size_t size = 0;
  ASSERT_EQ(getInfo_(CL_LAYER_API_VERSION, sizeof version, &version, &size), CL_SUCCESS);
  EXPECT_EQ(version, static_cast<cl_layer_api_version>(CL_LAYER_API_VERSION_100));
  EXPECT_EQ(size, sizeof version);

  ASSERT_EQ(getInfo_(CL_LAYER_NAME, 0, nullptr, &size), CL_SUCCESS);
  ASSERT_GT(size, 1u);
  std::string name(size, '\0');
  ASSERT_EQ(getInfo_(CL_LAYER_NAME, size, name.data(), nullptr), CL_SUCCESS);
  EXPECT_EQ(name.back(), '\0');
  EXPECT_NE(name.find("IntelSubgroups"), std::string::npos) << name;
  EXPECT_NE(name.find(ISG_VERSION), std::string::npos) << name;

  EXPECT_EQ(getInfo_(CL_LAYER_API_VERSION, 1, &version, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(getInfo_(0x1234, sizeof version, &version, nullptr), CL_INVALID_VALUE);
}

TEST_F(LoaderInit, OclIcdTableOf149Entries) { expectFilledTable(149, callInit); }
TEST_F(LoaderInit, KhronosTableOf150Entries) { expectFilledTable(150, callInit); }
TEST_F(LoaderInit, WithPropertiesNull) { expectFilledTable(150, callInitNullProps); }
TEST_F(LoaderInit, WithPropertiesEmpty) { expectFilledTable(150, callInitEmptyProps); }

TEST_F(LoaderInit, TooFewEntriesIsAnError) {
  FakeTarget target(10);
  cl_uint returned = 0;
  const cl_icd_dispatch* layer = nullptr;
  EXPECT_NE(init_(10, target.table(), &returned, &layer), CL_SUCCESS);
  EXPECT_NE(initWithProperties_(10, target.table(), &returned, &layer, nullptr), CL_SUCCESS);
  EXPECT_NE(init_(0, target.table(), &returned, &layer), CL_SUCCESS);
}

TEST_F(LoaderInit, NullArgumentsAreAnError) {
  FakeTarget target(149);
  cl_uint returned = 0;
  const cl_icd_dispatch* layer = nullptr;
  EXPECT_EQ(init_(149, nullptr, &returned, &layer), CL_INVALID_VALUE);
  EXPECT_EQ(init_(149, target.table(), nullptr, &layer), CL_INVALID_VALUE);
  EXPECT_EQ(init_(149, target.table(), &returned, nullptr), CL_INVALID_VALUE);
}

TEST_F(LoaderInit, DisableHandsBackTheTargetTable) {
  setenv("ISG_DISABLE", "1", 1);
  FakeTarget target(150);
  cl_uint returned = 0;
  const cl_icd_dispatch* layer = nullptr;
  ASSERT_EQ(init_(150, target.table(), &returned, &layer), CL_SUCCESS);
  ASSERT_NE(layer, nullptr);
  void* const* entries = reinterpret_cast<void* const*>(layer);
  for (size_t i = 0; i < returned; ++i) EXPECT_EQ(entries[i], target.entries[i]) << "entry " << i;
}

// The Khronos loader's order: init, (calls), deinit, dlclose; and a loader loaded again in the
// same process initialises the layer again.
TEST_F(LoaderInit, DeinitThenInitAgain) {
  FakeTarget target(150);
  cl_uint returned = 0;
  const cl_icd_dispatch* layer = nullptr;
  ASSERT_EQ(initWithProperties_(150, target.table(), &returned, &layer, nullptr), CL_SUCCESS);
  EXPECT_EQ(deinit_(), CL_SUCCESS);
  EXPECT_EQ(deinit_(), CL_SUCCESS);
  expectFilledTable(150, callInitNullProps);
  EXPECT_EQ(deinit_(), CL_SUCCESS);
}

// Deinit closes the log file clInitLayer opened; what the layer logs after it is not lost.
TEST_F(LoaderInit, DeinitClosesTheLogFile) {
  std::string pattern = ::testing::TempDir() + "isg-loader-init-log-XXXXXX";
  char* path = pattern.data();
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  setenv("ISG_LOG", "info", 1);
  setenv("ISG_LOG_FILE", path, 1);
  FakeTarget target(150);
  cl_uint returned = 0;
  const cl_icd_dispatch* layer = nullptr;
  ASSERT_EQ(initWithProperties_(150, target.table(), &returned, &layer, nullptr), CL_SUCCESS);
  EXPECT_EQ(deinit_(), CL_SUCCESS);
  unsetenv("ISG_LOG");
  unsetenv("ISG_LOG_FILE");
  std::FILE* f = std::fopen(path, "r");
  ASSERT_NE(f, nullptr);
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
  std::fclose(f);
  std::remove(path);
  EXPECT_NE(text.find("deinitialises"), std::string::npos) << text;
}

// Linked -z nodelete (loader_entry.cpp says why): the Khronos loader's dlclose after clDeinitLayer
// leaves the library mapped.
TEST(LayerLibrary, StaysLoadedAfterDlclose) {
  void* handle = dlopen(ISG_LAYER_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  ASSERT_EQ(dlclose(handle), 0);
  void* again = dlopen(ISG_LAYER_PATH, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  EXPECT_NE(again, nullptr) << "the layer was unmapped by dlclose";
  if (again) dlclose(again);
}

TEST(LayerLibrary, ExportsOnlyTheFourLoaderSymbols) {
  std::string command = std::string("nm -D --defined-only '") + ISG_LAYER_PATH + "'";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::set<std::string> exported;
  char line[4096];
  while (fgets(line, sizeof line, pipe)) {
    std::istringstream words(line);
    std::string address, type, name;
    if (!(words >> address >> type >> name)) continue;
    if (type == "A") continue;  // version-node markers, not symbols
    exported.insert(name.substr(0, name.find('@')));
  }
  ASSERT_EQ(pclose(pipe), 0) << command;
  EXPECT_EQ(exported,
            (std::set<std::string>{"clGetLayerInfo", "clInitLayer", "clInitLayerWithProperties",
                                   "clDeinitLayer"}));
}

}  // namespace
