// ferry-bench's chart: one horizontal bar per row, its ratio to the limit on a
// common axis; a dashed line at 1.0 (the limit), a black tick at the row's
// target; green where the target is met, red where it is missed, grey where
// the row has none.
#include "bench/bench_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace ferry::bench {
namespace {

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20) out += c;
    }
  }
  return out;
}

void append(std::string& out, const char* format, ...) {
  char line[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  out += line;
}

const char* bar_colour(Met m) { return m == Met::yes ? "#2e7d32" : m == Met::no ? "#c62828" : "#90a4ae"; }

// Layout, in pixels.
constexpr double kWidth = 980, kLabelX = 16, kPlotX0 = 330, kPlotX1 = 800, kTop = 118, kRowH = 36, kBarH = 20;

}  // namespace

std::string chart_svg(const Meta& meta, const std::vector<Row>& rows) {
  double top_ratio = 1.0;
  for (const Row& r : rows) top_ratio = std::max({top_ratio, r.ratio, r.target.min_ratio});
  const double step = top_ratio * 1.1 <= 2.0 ? 0.2 : top_ratio * 1.1 <= 5.0 ? 0.5 : 1.0;
  const double xmax = std::ceil(top_ratio * 1.1 / step - 1e-9) * step;
  auto x_of = [&](double ratio) { return kPlotX0 + (kPlotX1 - kPlotX0) * std::clamp(ratio, 0.0, xmax) / xmax; };
  const double plot_bottom = kTop + kRowH * static_cast<double>(rows.size());
  const double height = plot_bottom + 78;

  std::string s;
  append(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  append(s,
         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
         "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
         kWidth, height, kWidth, height);
  const std::string title = "ferry-bench on " + meta.device + " (" + meta.backend + " backend)";
  append(s, "<title>%s</title>\n", xml_escape(title).c_str());
  append(s, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", kWidth, height);
  append(s, "<text x=\"%.0f\" y=\"26\" font-size=\"17\" font-weight=\"bold\" fill=\"#212121\">%s</text>\n", kLabelX,
         xml_escape(title).c_str());
  char line[512];
  std::snprintf(line, sizeof line, "batch %s uint8 -> %s %s, %.1f MB in, median of %d x %d batches", meta.shape.c_str(),
                meta.dtype.c_str(), meta.layout.c_str(), static_cast<double>(meta.input_bytes) / 1e6, meta.repeats,
                meta.iterations);
  append(s, "<text x=\"%.0f\" y=\"47\" font-size=\"12.5\" fill=\"#424242\">%s</text>\n", kLabelX,
         xml_escape(line).c_str());
  append(s, "<text x=\"%.0f\" y=\"65\" font-size=\"12.5\" fill=\"#424242\">%s</text>\n", kLabelX,
         xml_escape("bars: throughput over the limit, " + meta.limit).c_str());
  append(s, "<text x=\"%.0f\" y=\"83\" font-size=\"12.5\" fill=\"#424242\">%s</text>\n", kLabelX,
         xml_escape(std::string("one image: ") + (meta.gpu() ? "the pinned copy's latency" : "the conversion's latency") +
                    " over ferry's end-to-end latency")
             .c_str());

  // Grid and axis.
  for (double t = 0; t <= xmax + 1e-9; t += step) {
    const double x = x_of(t);
    append(s, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#e0e0e0\" stroke-width=\"1\"/>\n", x,
           kTop - 4, x, plot_bottom);
    append(s, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\" fill=\"#616161\" text-anchor=\"middle\">%.1f</text>\n", x,
           plot_bottom + 15, t);
  }
  append(s, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11.5\" fill=\"#424242\" text-anchor=\"middle\">x limit</text>\n",
         (kPlotX0 + kPlotX1) / 2, plot_bottom + 31);

  // The bars; their values are written after the limit line, so that it does not cross them.
  std::string values;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const double y = kTop + kRowH * static_cast<double>(i), bar_y = y + (kRowH - kBarH) / 2;
    const double w = x_of(r.ratio) - kPlotX0;
    append(s, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"12.5\" fill=\"#212121\">%s</text>\n", kLabelX,
           bar_y + kBarH / 2 + 4.5, xml_escape(r.name).c_str());
    append(s, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"><title>%s</title></rect>\n",
           kPlotX0, bar_y, std::max(w, 0.5), kBarH, bar_colour(r.met), xml_escape(r.note).c_str());
    double text_x = kPlotX0 + w;
    if (r.target.min_ratio > 0) {
      const double tx = x_of(r.target.min_ratio);
      append(s,
             "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000000\" stroke-width=\"2.5\"/>\n", tx,
             bar_y - 4, tx, bar_y + kBarH + 4);
      append(s, "<path d=\"M %.1f %.1f l -5 -7 l 10 0 z\" fill=\"#000000\"/>\n", tx, bar_y - 3);
      text_x = std::max(text_x, tx);
    }
    std::string value;
    std::snprintf(line, sizeof line, "%.3f", r.ratio);
    value = line;
    if (r.met == Met::yes) value += "  met (" + r.target.text + ")";
    if (r.met == Met::no) value += "  MISSED (" + r.target.text + (r.missed.empty() ? "" : "; " + r.missed) + ")";
    if (text_x < x_of(1.0) && text_x > x_of(1.0) - 12) text_x = x_of(1.0);  // not on the limit line
    append(values,
           "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"3\" "
           "paint-order=\"stroke\">%s</text>\n",
           text_x + 7,
           bar_y + kBarH / 2 + 4.5, r.met == Met::no ? "#b71c1c" : "#212121", xml_escape(value).c_str());
  }

  // The limit line, over the bars.
  const double lx = x_of(1.0);
  append(s,
         "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#263238\" stroke-width=\"1.5\" "
         "stroke-dasharray=\"5 4\"/>\n",
         lx, kTop - 10, lx, plot_bottom);
  append(s, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11.5\" fill=\"#263238\" text-anchor=\"middle\">limit = 1.0</text>\n",
         lx, kTop - 14);
  s += values;

  // Legend.
  const double ly = plot_bottom + 52;
  double lxx = kLabelX;
  const struct {
    const char* colour;
    const char* text;
  } keys[] = {{bar_colour(Met::yes), "target met"}, {bar_colour(Met::no), "target missed"},
              {bar_colour(Met::none), "no target (reference, baseline)"}};
  for (const auto& k : keys) {
    append(s, "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"12\" fill=\"%s\"/>\n", lxx, ly - 10, k.colour);
    append(s, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" fill=\"#424242\">%s</text>\n", lxx + 20, ly, k.text);
    lxx += 40 + 7.2 * static_cast<double>(std::char_traits<char>::length(k.text));
  }
  append(s, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#000000\" stroke-width=\"2.5\"/>\n", lxx + 5,
         ly - 12, lxx + 5, ly + 2);
  append(s, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" fill=\"#424242\">target</text>\n", lxx + 14, ly);
  append(s, "</svg>\n");
  return s;
}

bool write_svg(const std::string& path, const Meta& meta, const std::vector<Row>& rows) {
  const std::string svg = chart_svg(meta, rows);
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  const bool wrote = std::fwrite(svg.data(), 1, svg.size(), f) == svg.size();
  return std::fclose(f) == 0 && wrote;
}

}  // namespace ferry::bench
