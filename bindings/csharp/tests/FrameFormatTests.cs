using System;
using System.Runtime.InteropServices;
using NUnit.Framework;

namespace Ferry.Tests {

/// <summary>Camera and video frames (issue 15: ferry_source.format) on the CPU backend: an NV12
/// frame of 4 x 2 pixels against RGB worked out here from the BT.601 (and BT.709) formula of
/// include/ferry/pixel_format.h, in one buffer and with its planes apart.</summary>
[TestFixture]
public class FrameFormatTests {
  /// <summary>Y: 2 rows of 4; then one row of U,V pairs (chroma for the 2 x 2 blocks).</summary>
  static readonly int[] Y = { 16, 60, 120, 235, 81, 145, 41, 210 };
  static readonly int[] UV = { 90, 240, 54, 34 };

  static byte[] Nv12() {
    var frame = new byte[12];
    for (int i = 0; i < 8; ++i) frame[i] = (byte)Y[i];
    for (int i = 0; i < 4; ++i) frame[8 + i] = (byte)UV[i];
    return frame;
  }

  static int Fixed(double v) { return (int)Math.Round(v * (1 << 20), MidpointRounding.AwayFromZero); }

  static byte Sat(long v) { return (byte)Math.Max(0, Math.Min(255, v)); }

  /// <summary>The RGB pixel_format.h defines: coefficients from Kr and Kb rounded to 20 fractional
  /// bits, then R = (y' + CRV v + 2^19) >> 20, ... with y' = max(0, Y - yo) CY, u = U - 128,
  /// v = V - 128.</summary>
  static byte[] Expected(double kr, double kb, bool limited) {
    double kg = 1 - kr - kb, ys = limited ? 255.0 / 219 : 1, cs = limited ? 255.0 / 224 : 1;
    int cy = Fixed(ys), crv = Fixed(2 * cs * (1 - kr)), cgu = Fixed(-2 * cs * kb * (1 - kb) / kg);
    int cgv = Fixed(-2 * cs * kr * (1 - kr) / kg), cbu = Fixed(2 * cs * (1 - kb)), yo = limited ? 16 : 0;
    var rgb = new byte[2 * 4 * 3];
    for (int y = 0; y < 2; ++y) {
      for (int x = 0; x < 4; ++x) {
        long luma = (long)Math.Max(0, Y[4 * y + x] - yo) * cy;
        long u = UV[2 * (x / 2)] - 128, v = UV[2 * (x / 2) + 1] - 128;
        int at = 3 * (4 * y + x);
        rgb[at] = Sat((luma + crv * v + (1 << 19)) >> 20);
        rgb[at + 1] = Sat((luma + cgu * u + cgv * v + (1 << 19)) >> 20);
        rgb[at + 2] = Sat((luma + cbu * u + (1 << 19)) >> 20);
      }
    }
    return rgb;
  }

  /// <summary>Converts with a uint8 NHWC transform; checks the shape (1, 2, 4, 3) and returns the
  /// bytes. data null: the source's own buffer.</summary>
  static byte[] Convert(Context ctx, Source source, byte[] data) {
    using (var t = new Transform()) {
      t.OutDtype = DType.UInt8;
      t.OutLayout = Layout.Nhwc;
      using (Batch batch = data != null ? ctx.Submit(source, data, t) : ctx.Submit(source, t)) {
        batch.Wait();
        using (TensorInfo info = batch.Output()) {
          Assert.AreEqual(new long[] { 1, 2, 4, 3 }, info.Shape());
          var values = new byte[info.Bytes];
          Marshal.Copy(info.Data, values, 0, values.Length);
          return values;
        }
      }
    }
  }

  [Test]
  public void Nv12MatchesTheBt601Formula() {
    using (Context ctx = FerryTests.CpuContext())
    using (var source = new Source().SetFrame(1, 2, 4, PixelFormat.Nv12)) {
      Assert.AreEqual(PixelFormat.Nv12, source.Format);
      Assert.AreEqual(3, source.C);
      Assert.AreEqual(ColorMatrix.Bt601, source.ColorMatrix);
      Assert.AreEqual(ColorRange.Limited, source.ColorRange);
      Assert.AreEqual(ChromaFilter.ChromaNearest, source.ChromaFilter);
      byte[] want = Expected(0.299, 0.114, true);
      Assert.AreEqual(want, Convert(ctx, source, Nv12()));
      source.SetBuffer(Nv12());  // pinned until ferry no longer reads it
      Assert.AreEqual(want, Convert(ctx, source, null));
    }
  }

  [Test]
  public void ColourOptionsByEnumAndByName() {
    using (Context ctx = FerryTests.CpuContext())
    using (var source = new Source().SetFrame(1, 2, 4, "nv12")) {
      source.ColorMatrix = ColorMatrix.Bt709;
      source.ColorRange = ColorRange.Full;
      Assert.AreEqual(Expected(0.2126, 0.0722, false), Convert(ctx, source, Nv12()));
      source.SetColorMatrix("BT601").SetColorRange("limited").SetChromaFilter("nearest");
      Assert.AreEqual(ColorMatrix.Bt601, source.ColorMatrix);
      Assert.AreEqual(Expected(0.299, 0.114, true), Convert(ctx, source, Nv12()));
      source.ChromaFilter = ChromaFilter.ChromaLinear;  // the U,V of the 2 x 2 blocks blend across
      Assert.AreNotEqual(Expected(0.299, 0.114, true), Convert(ctx, source, Nv12()));
    }
  }

  [Test]
  public void PlanesApartGiveTheSameFrame() {
    // Y rows 6 bytes apart (12 bytes), the U,V row at byte 16: one buffer of 20 bytes.
    var apart = new byte[20];
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 4; ++x) apart[6 * y + x] = (byte)Y[4 * y + x];
    for (int i = 0; i < 4; ++i) apart[16 + i] = (byte)UV[i];
    using (Context ctx = FerryTests.CpuContext())
    using (var source = new Source().SetFrame(1, 2, 4, PixelFormat.Nv12)) {
      source.SetPlaneOffsets(0, 16).SetPlanePitches(6, 5);
      Assert.AreEqual(new long[] { 0, 16, 0 }, source.PlaneOffsets());
      Assert.AreEqual(new long[] { 6, 5, 0 }, source.PlanePitches());
      Assert.AreEqual(Expected(0.299, 0.114, true), Convert(ctx, source, apart));
    }
  }

  [Test]
  public void BadFramesThrowNamingTheField() {
    using (Context ctx = FerryTests.CpuContext())
    using (var source = new Source().SetFrame(1, 2, 4, PixelFormat.Nv12)) {
      var e = Assert.Throws<InvalidArgumentException>(() => PixelFormats.Parse("nv16"));
      StringAssert.Contains("format is \"nv16\"", e.Message);
      e = Assert.Throws<InvalidArgumentException>(() => source.SetColorRange("hdr"));
      StringAssert.Contains("color_range is \"hdr\"", e.Message);
      e = Assert.Throws<InvalidArgumentException>(() => source.SetPlanePitches(1, 2, 3, 4));
      StringAssert.Contains("plane_pitches has 4 entries", e.Message);

      // A value outside the enum reaches ferry, which names the field.
      source.Format = (PixelFormat)99;
      var u = Assert.Throws<UnsupportedException>(() => Convert(ctx, source, Nv12()));
      StringAssert.Contains("source.format is 99", u.Message);
      source.Format = PixelFormat.Nv12;
      source.ChromaFilter = (ChromaFilter)7;
      u = Assert.Throws<UnsupportedException>(() => Convert(ctx, source, Nv12()));
      StringAssert.Contains("source.chroma_filter is 7", u.Message);
      source.ChromaFilter = ChromaFilter.ChromaNearest;

      // A buffer one byte short.
      var small = Assert.Throws<SourceTooSmallException>(() => Convert(ctx, source, new byte[11]));
      StringAssert.Contains("source.bytes is 11", small.Message);
    }
  }
}

}  // namespace Ferry.Tests
