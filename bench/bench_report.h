// ferry-bench's results: one table on stdout, the same rows as JSON.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace ferry::bench {

struct Row {
  std::string name;
  std::string note;
  double ms = 0;           // median per batch
  double images_per_s = 0;
  double gbps = 0;         // uint8 input bytes per second
  double ratio = 0;        // to the limit row (latency row: memcpy latency / ferry latency)
  std::string counters;    // steady-state allocation counters, where measured
  long long mallocs = -1, host_allocs = -1, host_registers = -1;
  double pinned_peak_mb = -1;
};

struct Meta {
  std::string device, backend, shape, dtype, layout;
  long long input_bytes = 0;
  int iterations = 0, repeats = 0;
  double pinned_cap_mb = 0;
};

inline void print_table(const Meta& m, const std::vector<Row>& rows) {
  std::printf("\nferry-bench on %s (%s backend): batch %s uint8 -> %s %s, %.1f MB input, median of %d x %d batches\n",
              m.device.c_str(), m.backend.c_str(), m.shape.c_str(), m.dtype.c_str(), m.layout.c_str(),
              static_cast<double>(m.input_bytes) / 1e6, m.repeats, m.iterations);
  std::printf("%-34s %10s %12s %9s %9s  %s\n", "pipeline", "ms/batch", "images/s", "GB/s", "x limit", "notes");
  std::printf("%s\n", std::string(110, '-').c_str());
  for (const Row& r : rows)
    std::printf("%-34s %10.3f %12.0f %9.2f %9.3f  %s%s%s\n", r.name.c_str(), r.ms, r.images_per_s, r.gbps, r.ratio,
                r.note.c_str(), r.counters.empty() ? "" : "; ", r.counters.c_str());
  std::printf("(GB/s counts the uint8 input bytes; 'x limit' is GB/s over the limit row's; for the latency row it is\n"
              " the pinned copy's latency over ferry's end-to-end latency. Steady-state counters count CUDA\n"
              " allocations and registrations after warm-up: 0 means none per batch. Pinned cap: %.0f MB.)\n",
              m.pinned_cap_mb);
}

inline std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out;
}

inline bool write_json(const std::string& path, const Meta& m, const std::vector<Row>& rows) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f, "{\n  \"device\": \"%s\",\n  \"backend\": \"%s\",\n  \"shape\": \"%s\",\n  \"dtype\": \"%s\",\n",
               json_escape(m.device).c_str(), m.backend.c_str(), m.shape.c_str(), m.dtype.c_str());
  std::fprintf(f, "  \"layout\": \"%s\",\n  \"input_bytes\": %lld,\n  \"iterations\": %d,\n  \"repeats\": %d,\n",
               m.layout.c_str(), m.input_bytes, m.iterations, m.repeats);
  std::fprintf(f, "  \"pinned_cap_mb\": %.1f,\n  \"rows\": [\n", m.pinned_cap_mb);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::fprintf(f,
                 "    {\"name\": \"%s\", \"note\": \"%s\", \"ms_per_batch\": %.6f, \"images_per_s\": %.3f, "
                 "\"gbps\": %.4f, \"ratio_to_limit\": %.5f, \"cuda_malloc_calls\": %lld, "
                 "\"cuda_host_alloc_calls\": %lld, \"cuda_host_register_calls\": %lld, \"pinned_peak_mb\": %.2f}%s\n",
                 json_escape(r.name).c_str(), json_escape(r.note).c_str(), r.ms, r.images_per_s, r.gbps, r.ratio,
                 r.mallocs, r.host_allocs, r.host_registers, r.pinned_peak_mb, i + 1 < rows.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  return std::fclose(f) == 0;
}

}  // namespace ferry::bench
