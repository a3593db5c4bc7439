// ferry-bench's results: one table on stdout, the same rows as JSON (and as a
// chart, bench_chart.h). The wording follows the backend the run was on.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace ferry::bench {

// What a row must reach (bench_targets.h says where each figure comes from).
struct Target {
  double min_ratio = 0;  // 0: the row has no target (the limit, the naive baseline)
  std::string text;      // as the table prints it, e.g. ">= 0.95"
  std::string source;    // where the figure comes from
};

enum class Met { none, yes, no };  // none: the row has no target

struct Row {
  std::string id;          // stable across backends: limit, naive, pinned, pageable, registered, latency
  std::string name;
  std::string note;
  double ms = 0;           // median per batch
  double images_per_s = 0;
  double gbps = 0;         // uint8 input bytes per second
  double ratio = 0;        // to the limit row (latency row: the base latency / ferry's)
  std::string counters;    // steady-state counters, in the backend's own terms, where measured
  Target target;
  Met met = Met::none;
  std::string missed;      // what was missed besides the ratio (e.g. allocations after warm-up)
  // GPU rows: the CUDA calls after warm-up (-1: not measured).
  long long mallocs = -1, host_allocs = -1, host_registers = -1;
  double pinned_peak_mb = -1;
  // CPU rows: host memory (-1: not measured).
  long long host_new_allocs = -1;
  double host_output_peak_mb = -1, host_pool_peak_mb = -1;
};

struct Meta {
  std::string device, backend, shape, dtype, layout;
  std::string limit;        // what the limit row measures
  long long input_bytes = 0;
  int iterations = 0, repeats = 0;
  int cpu_threads = 0;      // CPU backend: the conversion threads (and the limit memcpy's)
  double pinned_cap_mb = 0;
  bool gpu() const { return backend != "CPU"; }
};

inline const char* met_text(Met m) { return m == Met::yes ? "yes" : m == Met::no ? "no" : "-"; }

// The row's verdict: its ratio against its target, and anything else it missed.
inline void judge(Row& r) {
  if (r.target.min_ratio <= 0) {
    r.met = Met::none;
    return;
  }
  r.met = r.ratio >= r.target.min_ratio && r.missed.empty() ? Met::yes : Met::no;
}

inline void print_table(const Meta& m, const std::vector<Row>& rows) {
  std::printf("\nferry-bench on %s (%s backend): batch %s uint8 -> %s %s, %.1f MB input, median of %d x %d batches\n",
              m.device.c_str(), m.backend.c_str(), m.shape.c_str(), m.dtype.c_str(), m.layout.c_str(),
              static_cast<double>(m.input_bytes) / 1e6, m.repeats, m.iterations);
  std::printf("%-36s %10s %12s %9s %8s %8s %4s  %s\n", "pipeline", "ms/batch", "images/s", "GB/s", "x limit",
              "target", "met", "notes");
  std::printf("%s\n", std::string(120, '-').c_str());
  for (const Row& r : rows) {
    std::string notes = r.note;
    if (!r.counters.empty()) notes += "; " + r.counters;
    if (!r.missed.empty()) notes += "; MISSED: " + r.missed;
    std::printf("%-36s %10.3f %12.0f %9.2f %8.3f %8s %4s  %s\n", r.name.c_str(), r.ms, r.images_per_s, r.gbps, r.ratio,
                r.target.text.empty() ? "-" : r.target.text.c_str(), met_text(r.met), notes.c_str());
  }
  if (m.gpu()) {
    std::printf("(GB/s counts the uint8 input bytes; 'x limit' is GB/s over the limit row's; for the latency row it is\n"
                " the pinned copy's latency over ferry's end-to-end latency. Targets: issue 5 (ratios from one run);\n"
                " a ferry row also needs no CUDA allocation or registration after warm-up and its pinned peak under\n"
                " the cap (%.0f MB) to be met.)\n",
                m.pinned_cap_mb);
  } else {
    std::printf("(GB/s counts the uint8 input bytes. The limit: %s;\n"
                " 'x limit' is its time over the row's, so a conversion as fast as memory allows reads 1.0; for the\n"
                " latency row it is the conversion alone over ferry's end-to-end latency. Targets: >= 0.45 of the\n"
                " limit (CPU conversion / threaded memcpy measured 0.46-0.61 with 16 threads); one image: issue 5's\n"
                " +20 us pipeline budget. A ferry row also needs no new host allocation after warm-up to be met.)\n",
                m.limit.c_str());
  }
}

inline std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out;
}

inline std::string json_string(const std::string& s) { return "\"" + json_escape(s) + "\""; }

inline bool write_json(const std::string& path, const Meta& m, const std::vector<Row>& rows) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f, "{\n  \"device\": %s,\n  \"backend\": \"%s\",\n  \"shape\": \"%s\",\n  \"dtype\": \"%s\",\n",
               json_string(m.device).c_str(), m.backend.c_str(), m.shape.c_str(), m.dtype.c_str());
  std::fprintf(f, "  \"layout\": \"%s\",\n  \"input_bytes\": %lld,\n  \"iterations\": %d,\n  \"repeats\": %d,\n",
               m.layout.c_str(), m.input_bytes, m.iterations, m.repeats);
  std::fprintf(f, "  \"limit\": %s,\n", json_string(m.limit).c_str());
  if (m.gpu())
    std::fprintf(f, "  \"pinned_cap_mb\": %.1f,\n", m.pinned_cap_mb);
  else
    std::fprintf(f, "  \"cpu_threads\": %d,\n", m.cpu_threads);
  std::fprintf(f, "  \"rows\": [\n");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::fprintf(f,
                 "    {\"id\": \"%s\", \"name\": %s, \"note\": %s, \"ms_per_batch\": %.6f, \"images_per_s\": %.3f, "
                 "\"gbps\": %.4f, \"ratio_to_limit\": %.5f",
                 r.id.c_str(), json_string(r.name).c_str(), json_string(r.note).c_str(), r.ms, r.images_per_s, r.gbps,
                 r.ratio);
    if (r.target.min_ratio > 0)
      std::fprintf(f, ", \"target\": %s, \"target_ratio\": %.5f, \"target_source\": %s, \"target_met\": %s",
                   json_string(r.target.text).c_str(), r.target.min_ratio, json_string(r.target.source).c_str(),
                   r.met == Met::yes ? "true" : "false");
    else
      std::fprintf(f, ", \"target\": null, \"target_ratio\": null, \"target_source\": %s, \"target_met\": null",
                   json_string(r.target.source).c_str());
    if (!r.missed.empty()) std::fprintf(f, ", \"missed\": %s", json_string(r.missed).c_str());
    if (r.mallocs >= 0)
      std::fprintf(f,
                   ", \"cuda_malloc_calls\": %lld, \"cuda_host_alloc_calls\": %lld, \"cuda_host_register_calls\": %lld, "
                   "\"pinned_peak_mb\": %.2f",
                   r.mallocs, r.host_allocs, r.host_registers, r.pinned_peak_mb);
    if (r.host_new_allocs >= 0)
      std::fprintf(f, ", \"host_new_allocs\": %lld, \"host_output_peak_mb\": %.2f, \"host_pool_peak_mb\": %.2f",
                   r.host_new_allocs, r.host_output_peak_mb, r.host_pool_peak_mb);
    std::fprintf(f, "}%s\n", i + 1 < rows.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  return std::fclose(f) == 0;
}

}  // namespace ferry::bench
