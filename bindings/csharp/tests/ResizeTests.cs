using System;
using System.Runtime.InteropServices;
using NUnit.Framework;

namespace Ferry.Tests {

/// <summary>Resize in the fused pass (issue 14) on the CPU backend, against values worked out by hand.</summary>
[TestFixture]
public class ResizeTests {
  /// <summary>One 2 x 4 gray image.</summary>
  static readonly byte[] Image = { 0, 40, 80, 120, 200, 100, 60, 20 };

  /// <summary>Converts Image (1 x 2 x 4 x 1) with t (uint8 NHWC out) and checks the shape.</summary>
  static byte[] ConvertUInt8(Context ctx, Transform t, long[] shape) {
    t.OutDtype = DType.UInt8;
    t.OutLayout = Layout.Nhwc;
    using (var source = new Source().SetShape(1, 2, 4, 1))
    using (Batch batch = ctx.Submit(source, Image, t)) {
      batch.Wait();
      using (TensorInfo info = batch.Output()) {
        Assert.AreEqual(shape, info.Shape());
        var values = new byte[info.Bytes];
        Marshal.Copy(info.Data, values, 0, values.Length);
        return values;
      }
    }
  }

  [Test]
  public void LinearHalvesEachAxis() {
    // 4 x 2 -> 2 x 1: each output pixel's center falls between four source pixels, weights 1/4.
    // (0 + 40 + 200 + 100) / 4 = 85, (80 + 120 + 60 + 20) / 4 = 70.
    using (Context ctx = FerryTests.CpuContext())
    using (var t = new Transform()) {
      t.SetResize(2, 1).SetInterpolation("linear");
      Assert.AreEqual(Interpolation.Linear, t.Interpolation);
      Assert.AreEqual(new byte[] { 85, 70 }, ConvertUInt8(ctx, t, new long[] { 1, 1, 2, 1 }));
    }
  }

  [Test]
  public void LetterboxKeepsTheAspectAndFillsTheBars() {
    // 4 x 2 into 4 x 4: scale 1, the image in rows 1 and 2, bars of 7 above and below.
    using (Context ctx = FerryTests.CpuContext())
    using (var t = new Transform()) {
      t.SetResize(4, 4).SetLetterboxValue(7f);
      t.ResizeMode = ResizeMode.Letterbox;
      t.Interpolation = Interpolation.Nearest;
      var want = new byte[] { 7, 7, 7, 7, 0, 40, 80, 120, 200, 100, 60, 20, 7, 7, 7, 7 };
      Assert.AreEqual(want, ConvertUInt8(ctx, t, new long[] { 1, 4, 4, 1 }));
      t.LetterboxAlign = LetterboxAlign.TopLeft;  // the bars after the image
      want = new byte[] { 0, 40, 80, 120, 200, 100, 60, 20, 7, 7, 7, 7, 7, 7, 7, 7 };
      Assert.AreEqual(want, ConvertUInt8(ctx, t, new long[] { 1, 4, 4, 1 }));
    }
  }

  [Test]
  public void FractionalWindowAndArea() {
    // The window x 1..3, y 0..2 (2 x 2) to 1 x 1 by AREA: (40 + 80 + 100 + 60) / 4 = 70.
    // The window x 0.5..2.5, y 0..1 to 1 x 1: 0.5 * 0 + 40 + 0.5 * 80, over 2 = 40.
    using (Context ctx = FerryTests.CpuContext())
    using (var t = new Transform()) {
      t.SetResize(1, 1).SetWindow(1f, 0f, 2f, 2f).SetInterpolation("area");
      Assert.AreEqual(new byte[] { 70 }, ConvertUInt8(ctx, t, new long[] { 1, 1, 1, 1 }));
      t.SetWindow(0.5f, 0f, 2f, 1f);
      Assert.AreEqual(new byte[] { 40 }, ConvertUInt8(ctx, t, new long[] { 1, 1, 1, 1 }));
      t.SetPerSampleWindow(1f, 0f, 2f, 2f);  // replaces the batch's window
      Assert.AreEqual(new byte[] { 70 }, ConvertUInt8(ctx, t, new long[] { 1, 1, 1, 1 }));
    }
  }

  [Test]
  public void BadResizeInputThrowsNamingIt() {
    using (Context ctx = FerryTests.CpuContext())
    using (var t = new Transform())
    using (var source = new Source().SetShape(1, 2, 4, 1)) {
      var e = Assert.Throws<InvalidArgumentException>(() => t.SetInterpolation("bilinear_aa"));
      StringAssert.Contains("\"bilinear_aa\"", e.Message);
      e = Assert.Throws<InvalidArgumentException>(() => t.SetPerSampleWindow(new float[5]));
      StringAssert.Contains("per_sample_window has 5 values", e.Message);

      t.SetResize(2, 2).SetWindow(2f, 0f, 3f, 2f);  // x 2..5 of a 4 wide image
      var r = Assert.Throws<OutOfRangeException>(() => ctx.Submit(source, Image, t));
      StringAssert.Contains("transform.window", r.Message);
      StringAssert.Contains("inside the 4x2 image", r.Message);

      t.SetWindow(0f, 0f, 0f, 0f).SetLetterboxValue(1f, 2f);  // 2 values, 1 channel
      e = Assert.Throws<InvalidArgumentException>(() => ctx.Submit(source, Image, t));
      StringAssert.Contains("letterbox_value has 2 values", e.Message);
      t.SetLetterboxValue(0f);

      t.SetResize(0, 2);
      e = Assert.Throws<InvalidArgumentException>(() => ctx.Submit(source, Image, t));
      StringAssert.Contains("transform.resize_w is 0", e.Message);
    }
  }
}

}  // namespace Ferry.Tests
