using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using NUnit.Framework;

namespace Ferry.Tests {

/// <summary>A batch of images of different sizes (Source.SetImages, ferry_source.sample_descs) on the CPU
/// backend.</summary>
[TestFixture]
public class ImagesTests {
  /// <summary>h, w of the three images; 3 channels.</summary>
  static readonly int[,] Sizes = { { 5, 7 }, { 9, 4 }, { 6, 11 } };

  static byte[] Pixels(int bytes, int seed) {
    var pixels = new byte[bytes];
    new Random(seed).NextBytes(pixels);
    return pixels;
  }

  static Transform ResizeTo4x3() {
    var t = new Transform();
    t.SetResize(4, 3).SetInterpolation("linear");
    return t;
  }

  /// <summary>The batch's float32 output as n rows of equal length.</summary>
  static float[][] OutputRows(Batch batch, int n) {
    batch.Wait();
    using (TensorInfo info = batch.Output()) {
      var all = new float[info.Bytes / 4];
      Marshal.Copy(info.Data, all, 0, all.Length);
      var rows = new float[n][];
      for (int i = 0; i < n; ++i) {
        rows[i] = new float[all.Length / n];
        Array.Copy(all, i * rows[i].Length, rows[i], 0, rows[i].Length);
      }
      return rows;
    }
  }

  /// <summary>One packed h x w x 3 image submitted alone, as a byte[] of one sample.</summary>
  static float[] Alone(Context ctx, Transform t, byte[] image, long h, long w, Layout layout) {
    using (var source = new Source().SetShape(1, h, w, 3)) {
      source.Layout = layout;
      using (Batch batch = ctx.Submit(source, image, t)) return OutputRows(batch, 1)[0];
    }
  }

  [Test]
  public void ByteArraysOfThreeSizesResizeAsEachAlone() {
    using (Context ctx = FerryTests.CpuContext())
    using (Transform t = ResizeTo4x3())
    using (var source = new Source()) {
      var images = new byte[3][];
      var list = new List<Source.Image>();
      for (int i = 0; i < 3; ++i) {
        images[i] = Pixels(Sizes[i, 0] * Sizes[i, 1] * 3, i);
        list.Add(new Source.Image(images[i], Sizes[i, 0], Sizes[i, 1], 3));
      }
      source.SetImages(list);
      Assert.AreEqual(3, source.N);
      Assert.AreEqual(3, source.C);
      using (TensorInfo info = Library.TransformOutputInfo(source, t))
        Assert.AreEqual(new long[] { 3, 3, 3, 4 }, info.Shape());
      float[][] rows;
      using (Batch batch = ctx.Submit(source, t)) {
        rows = OutputRows(batch, 3);
        using (TensorInfo info = batch.Output()) Assert.AreEqual(new long[] { 3, 3, 3, 4 }, info.Shape());
      }
      for (int i = 0; i < 3; ++i)
        Assert.AreEqual(Alone(ctx, t, images[i], Sizes[i, 0], Sizes[i, 1], Layout.Nhwc), rows[i], "sample " + i);
      // Convert pins the arrays for the call (ferry_transform_apply).
      using (var output = new Output()) {
        var convertedBytes = new float[3 * 3 * 3 * 4];
        var pin = GCHandle.Alloc(convertedBytes, GCHandleType.Pinned);
        try {
          output.Data = pin.AddrOfPinnedObject();
          output.Bytes = (ulong)convertedBytes.Length * 4;
          ctx.Convert(source, t, output);
        } finally {
          pin.Free();
        }
        for (int i = 0; i < 3; ++i) {
          var row = new float[36];
          Array.Copy(convertedBytes, 36 * i, row, 0, 36);
          Assert.AreEqual(rows[i], row, "converted sample " + i);
        }
      }
    }
  }

  [Test]
  public void UnmanagedImagesWithRowStridesResizeAsEachAlone([Values(Layout.Nhwc, Layout.Nchw)] Layout layout) {
    // Image 1 has 5 bytes of padding after each row (RowStride); the memory is Marshal.AllocHGlobal's.
    var memory = new IntPtr[3];
    try {
      using (Context ctx = FerryTests.CpuContext())
      using (Transform t = ResizeTo4x3())
      using (var source = new Source()) {
        source.Layout = layout;
        var packed = new byte[3][];
        var list = new Source.Image[3];
        for (int i = 0; i < 3; ++i) {
          int h = Sizes[i, 0], w = Sizes[i, 1];
          packed[i] = Pixels(h * w * 3, 10 + i);
          int rows = layout == Layout.Nhwc ? h : 3 * h, row = layout == Layout.Nhwc ? w * 3 : w;
          int stride = i == 1 ? row + 5 : row;
          memory[i] = Marshal.AllocHGlobal(rows * stride);
          for (int r = 0; r < rows; ++r) Marshal.Copy(packed[i], r * row, memory[i] + r * stride, row);
          list[i] = i == 1 ? new Source.Image(memory[i], rows * stride, h, w, 3, stride)
                           : new Source.Image(memory[i], rows * stride, h, w, 3);
        }
        source.SetImages(list);
        float[][] outRows;
        using (Batch batch = ctx.Submit(source, t)) outRows = OutputRows(batch, 3);
        for (int i = 0; i < 3; ++i)
          Assert.AreEqual(Alone(ctx, t, packed[i], Sizes[i, 0], Sizes[i, 1], layout), outRows[i], layout + " sample " + i);
      }
    } finally {
      foreach (IntPtr m in memory) if (m != IntPtr.Zero) Marshal.FreeHGlobal(m);
    }
  }

  [Test]
  public void ArraysStayPinnedUntilFerryIsDoneThoughTheBatchIsDropped() {
    // Many submits dropped without Wait: the completion callback unpins each; a forced GC in between
    // may not move an array ferry still reads (the results are checked on the last).
    using (Context ctx = FerryTests.CpuContext())
    using (Transform t = ResizeTo4x3()) {
      byte[] a = Pixels(5 * 7 * 3, 1), b = Pixels(9 * 4 * 3, 2);
      for (int k = 0; k < 20; ++k) {
        using (var source = new Source().SetImages(new Source.Image(a, 5, 7, 3), new Source.Image(b, 9, 4, 3)))
          ctx.Submit(source, t);
        GC.Collect();
      }
      using (var source = new Source().SetImages(new Source.Image(a, 5, 7, 3), new Source.Image(b, 9, 4, 3)))
      using (Batch batch = ctx.Submit(source, t)) {
        float[][] rows = OutputRows(batch, 2);
        Assert.AreEqual(Alone(ctx, t, a, 5, 7, Layout.Nhwc), rows[0]);
        Assert.AreEqual(Alone(ctx, t, b, 9, 4, Layout.Nhwc), rows[1]);
      }
    }
  }

  [Test]
  public void SetBufferGoesBackToOneBuffer() {
    using (Context ctx = FerryTests.CpuContext())
    using (Transform t = ResizeTo4x3())
    using (var source = new Source()) {
      source.SetImages(new Source.Image(new byte[5 * 7 * 3], 5, 7, 3));
      source.SetShape(1, 2, 2, 3).SetBuffer(new byte[2 * 2 * 3]);
      Assert.IsNull(source.Images);
      using (Batch batch = ctx.Submit(source, t)) Assert.AreEqual(1, OutputRows(batch, 1).Length);
    }
  }

  static void AssertRefused(string name, TestDelegate call) {
    var e = Assert.Throws<InvalidArgumentException>(call);
    StringAssert.Contains(name, e.Message);
  }

  [Test]
  public void BadImagesThrowNamingThem() {
    using (var source = new Source()) {
      var small = new byte[5 * 7 * 3];
      AssertRefused("images[1] has 1 channels but images[0] has 3",
                    () => source.SetImages(new Source.Image(small, 5, 7, 3), new Source.Image(small, 5, 7, 1)));
      AssertRefused("images[2] is null",
                    () => source.SetImages(new Source.Image(small, 5, 7, 3), new Source.Image(small, 5, 7, 3), null));
      AssertRefused("images[0] has null pixels", () => source.SetImages(new Source.Image((byte[])null, 5, 7, 3)));
      AssertRefused("images[0] has null pixels", () => source.SetImages(new Source.Image(IntPtr.Zero, 105, 5, 7, 3)));
      AssertRefused("images is empty", () => source.SetImages());
      AssertRefused("images is empty", () => source.SetImages(new List<Source.Image>()));
      AssertRefused("images is null", () => source.SetImages((Source.Image[])null));
      AssertRefused("images[1] is 6 x 7 x 3",  // 126 bytes, the array holds 105
                    () => source.SetImages(new Source.Image(small, 5, 7, 3), new Source.Image(small, 6, 7, 3)));
      AssertRefused("images[0] is 5 x 7 x 3 with rows 22 bytes apart",
                    () => source.SetImages(new Source.Image(small, 5, 7, 3, 22)));
      AssertRefused("images[0].RowStride is 20", () => source.SetImages(new Source.Image(small, 5, 7, 3, 20)));
      AssertRefused("images[0] is 0 x 7 x 3", () => source.SetImages(new Source.Image(small, 0, 7, 3)));
      Assert.AreEqual(0, source.N);  // nothing set by a refused call
      Assert.IsNull(source.Images);
    }
  }

  [Test]
  public void WithoutAResizeFerryNamesTheSizes() {
    using (Context ctx = FerryTests.CpuContext())
    using (var source = new Source()) {
      source.SetImages(new Source.Image(new byte[5 * 7 * 3], 5, 7, 3), new Source.Image(new byte[9 * 4 * 3], 9, 4, 3));
      var e = Assert.Throws<InvalidArgumentException>(() => ctx.Submit(source).Dispose());
      StringAssert.Contains("source.sample_descs[1]", e.Message);
    }
  }
}

}
