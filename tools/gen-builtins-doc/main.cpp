// SPDX-License-Identifier: MIT
// Writes docs/builtins.md from builtins-cl/builtins.def, the table the rewriter, the OpenCL C
// library and the tests all expand.
//   isg-gen-builtins-doc                 print the document
//   isg-gen-builtins-doc --output FILE   write it
//   isg-gen-builtins-doc --check FILE    fail unless FILE is exactly the generated text
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "builtin_table.h"
#include "isg/strategies.h"

#include "generated_doc.h"

namespace {

struct Row {
  std::string name, family, extension, signature, types;
};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string signatureOf(const std::string& shape, const std::string& name) {
  if (shape == "U_V") return "uint " + name + "(void)";
  if (shape == "V_FLAGS") return "void " + name + "(cl_mem_fence_flags [, memory_scope])";
  if (shape == "I_I") return "int " + name + "(int)";
  if (shape == "T_T") return "T " + name + "(T)";
  if (shape == "T_TU") return "T " + name + "(T, uint)";
  if (shape == "T_TTU") return "T " + name + "(T, T, uint)";
  return name;
}

std::vector<Row> rows() {
  std::vector<Row> r;
  // Rows sharing a name and extension (none today) would be merged by the reader anyway; one
  // line per table row keeps the document a faithful picture of the table.
  for (const isg::table::Function& f : isg::table::functions()) {
    std::vector<std::string> t;
    for (const isg::table::TypeEntry& e : f.types)
      t.push_back(e.type + (e.requirement == isg::table::Requirement::none
                                ? ""
                                : std::string(" (") + isg::table::requirementName(e.requirement) + ")"));
    r.push_back(Row{f.name, f.family, f.extension, signatureOf(isg::table::shapeName(f.shape), f.name),
                    join(t)});
  }
  for (const isg::table::Block& b : isg::table::blocks()) {
    const std::string v = b.element + (b.width > 1 ? std::to_string(b.width) : "");
    r.push_back(Row{b.read, "block", b.extension,
                    v + " " + b.read + "(const __global " + b.element +
                        "*), (read_only/read_write image2d_t, int2 byte_coord)",
                    v});
    r.push_back(Row{b.write, "block", b.extension,
                    "void " + b.write + "(__global " + b.element + "*, " + v +
                        "), (write_only/read_write image2d_t, int2 byte_coord, " + v + ")",
                    v});
  }
  for (const isg::table::Media& m : isg::table::mediaBlocks()) {
    const std::string v = m.element + (m.width > 1 ? std::to_string(m.width) : "");
    r.push_back(Row{m.read, "media", m.extension,
                    v + " " + m.read +
                        "(int2 src_byte_offset, int width, int height, read_only/read_write image2d_t)",
                    v});
    r.push_back(Row{m.write, "media", m.extension,
                    "void " + m.write + "(int2 src_byte_offset, int width, int height, " + v +
                        " texels, write_only/read_write image2d_t)",
                    v});
  }
  return r;
}

// The strategies with a column, and whether each implements a family: its builtins-cl/ folder
// (or common/) guards the family's code with ISG_NEED_<family>. Read from the library itself,
// so the table cannot claim a family no library carries.
std::vector<std::string> strategiesWithLibrary() {
  std::vector<std::string> names;
  for (const isg::StrategyFacts& f : isg::strategies())
    if (*f.folder) names.push_back(f.folder);
  return names;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool implements(const std::string& strategy, const std::string& family) {
  namespace fs = std::filesystem;
  const fs::path root = ISG_BUILTINS_CL_DIR;
  if (!fs::is_directory(root / strategy)) return false;
  for (const char* folder : {"common", strategy.c_str()})
    for (const auto& entry : fs::directory_iterator(root / folder))
      if (entry.path().extension() == ".cl" &&
          slurp(entry.path()).find("ISG_NEED_" + family) != std::string::npos)
        return true;
  return false;
}

std::string escapeCell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string generate() {
  std::vector<std::string> extensions;
  for (const isg::table::Extension& e : isg::table::extensions())
    extensions.push_back("`" + e.name + "` " + std::to_string(e.major) + "." +
                         std::to_string(e.minor) + "." + std::to_string(e.patch) +
                         (e.needsSpirv && e.needsImages
                              ? " (where the layer builds SPIR-V, on devices with images, not through PTX on NVIDIA)"
                          : e.needsSpirv ? " (where the layer builds SPIR-V: docs/spirv.md)"
                          : e.needsImages ? " (on devices with images)"
                                          : ""));

  std::ostringstream md;
  md << "<!-- SPDX-License-Identifier: MIT -->\n"
     << "<!-- Generated by tools/gen-builtins-doc from builtins-cl/builtins.def; do not edit. -->\n"
     << "# Sub-group builtins\n\n"
     << "Every builtin the layer provides, from the one table `builtins-cl/builtins.def`. A\n"
     << "*family* is the unit the OpenCL C library is compiled in (`ISG_NEED_<family>`).\n\n"
     << "Extensions the layer advertises (exactly these, in this order): " << join(extensions)
     << ".\n\n"
     << "## Strategies\n\n"
     << "From `rewriter/include/isg/strategies.def`; what each guarantees (rules, edges) is\n"
     << "[strategies.md](strategies.md).\n\n"
     << "| strategy | library | hidden scratch argument | default S | sizes |\n"
     << "|---|---|---|---|---|\n";
  for (const isg::StrategyFacts& f : isg::strategies()) {
    if (!*f.folder) {  // native: nothing is rewritten
      md << "| " << f.name << " | none | no | the device's | the device's |\n";
      continue;
    }
    md << "| " << f.name << " | `builtins-cl/" << f.folder << "/` | " << (f.scratch ? "yes" : "no")
       << " | " << (f.defaultSubGroupSize ? std::to_string(f.defaultSubGroupSize) : "the native size N")
       << " | " << f.minSubGroupSize << " to "
       << (f.maxSubGroupSize ? std::to_string(f.maxSubGroupSize) : "max(64, N)")
       << " (powers of two) |\n";
  }
  md << "\n"
     << "## Builtins\n\n"
     << "| Builtin | Family | Extension | Signature | Types |";
  const std::vector<std::string> libraries = strategiesWithLibrary();
  for (const std::string& strategy : libraries) md << " " << strategy << " |";
  md << "\n|---|---|---|---|---|";
  for (size_t i = 0; i < libraries.size(); ++i) md << "---|";
  md << "\n";
  for (const Row& r : rows()) {
    md << "| `" << r.name << "` | " << r.family << " | " << r.extension << " | `"
       << escapeCell(r.signature) << "` | " << escapeCell(r.types.empty() ? "-" : r.types)
       << " |";
    for (const std::string& strategy : libraries)
      md << (implements(strategy, r.family) ? " supported |" : " no |");
    md << "\n";
  }
  md << "\nTypes marked (fp16) need `cl_khr_fp16`, (fp64) need `cl_khr_fp64` (or OpenCL C 3.0\n"
     << "with `__opencl_c_fp64`); rows whose requirement the device lacks are left out of the\n"
     << "library for that device. Rows of `cl_khr_subgroup_extended_types` are the khr names\n"
     << "on 8- and 16-bit integers, which Intel's compiler accepts with `cl_intel_subgroups`;\n"
     << "the layer provides them (with their own identities) but does not advertise that\n"
     << "extension.\n\n"
     << "Image block IO and media block IO move an image's bits as they are, Intel's hardware\n"
     << "for every format. The library recovers them through `read_image*`/`write_image*` where\n"
     << "that conversion is lossless (UNSIGNED/SIGNED_INT8/16/32, UNORM_INT8/16, FLOAT); for\n"
     << "every other format (SNORM_INT8/16, HALF_FLOAT, packed 565/555/101010, ...) the enqueue\n"
     << "hands the kernel a raw-bits view, an image of an unsigned-integer format with the same\n"
     << "element size, filled with the image's texels before the launch and copied back after\n"
     << "it (`clEnqueueCopyImageToBuffer`/`clEnqueueCopyBufferToImage` move texels unconverted;\n"
     << "layer/image_views.h). A kernel that also samples or converts the same argument\n"
     << "(`read_image*`, `write_image*`, `get_image_channel_*`; the size queries are fine) cannot\n"
     << "take a view: for such a format its enqueue fails with `CL_IMAGE_FORMAT_NOT_SUPPORTED`\n"
     << "and a log line (cl_intel_media_block_io itself asks that such images be used by the\n"
     << "media functions only). Programs from SPIR-V keep that refusal for every inexact format.\n\n"
     << "`read_write image2d_t` (OpenCL C 2.0, or 3.0 with `__opencl_c_read_write_images`)\n"
     << "works where the device has read-write images and also where it has none (NVIDIA): the\n"
     << "rewritten kernel takes the image `write_only` in its place plus a hidden buffer of its\n"
     << "texels (filled before the launch, copied back after it; the launch's event is the\n"
     << "copy's), and helpers take the library's stand-in type. Block IO, media block IO and\n"
     << "`get_image_width/height/dim` run on it in program order, fences included (it is global\n"
     << "memory); any other image function on such a parameter fails the build with a log line\n"
     << "at the parameter. `ISG_EMULATE_READ_WRITE_IMAGES=1` takes this path on any device.\n\n"
     << "Media block IO (`cl_intel_media_block_io`) is advertised by devices with images\n"
     << "(`CL_DEVICE_IMAGE_SUPPORT`) and runs the same code on every strategy: no work-item\n"
     << "needs another's data, so each reads or writes its own elements of the region through\n"
     << "the raw image access above. Width and height are checked against the spec's table (4\n"
     << "to 32 bytes, 4-byte aligned; at most 64, 32, 16 or 8 rows for 4, 8, 12-16 and 20-32\n"
     << "bytes) wherever the parse can fold them (literals, macros, constant expressions, and\n"
     << "locals initialised once, as `int bwidth = BLOCK_WIDTH;`), and a value outside it fails\n"
     << "the build with a log line at the call; a value only known at run time runs as given.\n"
     << "Rows whose byte width is not a power of two (12, 20, 24, 28 bytes) are padded to the\n"
     << "next power of two in the re-organised region, as SPV_INTEL_media_block_io says (\"with\n"
     << "undefined padding values to make a power-of-two row byte width\"; a write skips them):\n"
     << "those values read as 0. Reads outside the image replicate the nearest edge element\n"
     << "(defined by the spec for elements no wider than the function's), writes outside it are\n"
     << "dropped, tail elements of a region smaller than S x the vector width read as 0. The\n"
     << "packed-YUV edge rules of `cl_intel_packed_yuv` do not apply: no non-Intel driver has\n"
     << "those formats.\n\n"
     << "Intel's conformance suite (intel/cassian, `oclc_sub_group_functions` and\n"
     << "`oclc_work_item_functions`; tools/cassian/README.md) passes on an H100 through the\n"
     << "layer but for what cassian skips itself (fp16 cases: NVIDIA has no cl_khr_fp16). What\n"
     << "it cannot pass elsewhere, and why (docs/conformance.md): on PoCL 3.1, the image and\n"
     << "media cases that create CL_RG images (PoCL has no RG formats: `clCreateImage` fails\n"
     << "before any kernel runs) and the 16-element vector shuffles at 64 x 64 work-items\n"
     << "(PoCL's compiled kernel overflows its work-group stack, as it does without the layer);\n"
     << "on the local strategy, work-groups whose exchange scratch exceeds the device's local\n"
     << "memory (an H100's 48 KiB holds 1,024 work-items of `int4` shuffle_up/down) are refused\n"
     << "at enqueue with `CL_OUT_OF_RESOURCES`, which is how the spec lets a device refuse a\n"
     << "work-group its kernel's resources do not allow.\n\n"
     << "## Programs from SPIR-V\n\n"
     << "Every builtin above also comes as its `SPV_INTEL_subgroups` / `SPV_INTEL_media_block_io`\n"
     << "instruction in a module created with `clCreateProgramWithIL` (`cl_intel_spirv_subgroups`,\n"
     << "`cl_intel_spirv_media_block_io`; docs/spirv.md), with the same library and results, except:\n\n"
     << "- the 16-element 16-bit block reads and writes (`_us16`): SPIRV-LLVM-Translator 15 cannot\n"
     << "  read them; such a module fails its build with the translator's message;\n"
     << "- on NVIDIA, where the layer writes PTX for the driver, nothing that takes an image: the\n"
     << "  image forms of the block reads and writes and the media block IO functions (and images,\n"
     << "  samplers, pipes, device-side enqueue and printf anywhere in the module) fail the build\n"
     << "  with a log line that names them, and `cl_intel_spirv_media_block_io` is not advertised\n"
     << "  there. Buffer forms, shuffles, votes, broadcasts, reductions and scans all work.\n";
  return md.str();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string text = generate();
  return isg::runDocGenerator(argc, argv, text, "builtins-cl/builtins.def", "builtins-doc");
}
