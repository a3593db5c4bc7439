using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using NUnit.Framework;

namespace Ferry.Tests {

/// <summary>Random augmentation (ferry/augment.h) on the CPU backend: Augment, Transform.Augment,
/// what each sample drew, Prefetch with an Augment.</summary>
[TestFixture]
public class AugmentTests {
  const long N = 4, H = 4, W = 5;  // FerryTests.ConvertNhwc's images

  /// <summary>N x H x W x 3 pixels, each a value of its own.</summary>
  static byte[] Pixels() {
    var data = new byte[N * H * W * 3];
    for (int i = 0; i < data.Length; ++i) data[i] = (byte)(37 * i + 11);
    return data;
  }

  /// <summary>Every option on, so each sample draws something of each.</summary>
  static Augment Busy(ulong step) {
    return new Augment {
      Seed = 1234, Step = step, Crop = AugmentCrop.CropRandomResized, Scale = new[] { 0.3f, 1f },
      FlipXProbability = 0.5f, FlipYProbability = 0.5f, Brightness = new[] { 0.6f, 1.4f },
      Contrast = new[] { 0.6f, 1.4f }, Saturation = new[] { 0.6f, 1.4f }, Hue = new[] { -0.1f, 0.1f },
      GrayscaleProbability = 0.3f, EraseProbability = 0.5f
    };
  }

  static AugmentParams[] Draw(Augment augment) {
    long[] h = { H, H, H, H }, w = { W, W, W, W };
    return Augment.Draw(augment, h, w, 4, 4);
  }

  /// <summary>The float32 NHWC output of the pixels through t.</summary>
  static float[] Convert(Context ctx, byte[] data, Transform t) {
    t.OutLayout = Layout.Nhwc;
    return FerryTests.ConvertNhwc(ctx, data, N, 3, t);
  }

  [Test]
  public void DefaultsAreThoseOfAugmentInit() {
    using (var a = new Augment()) {
      Assert.AreEqual(0UL, a.Seed);
      Assert.AreEqual(0UL, a.Step);
      Assert.AreEqual(0L, a.FirstIndex);
      Assert.AreEqual(AugmentCrop.CropNone, a.Crop);
      Assert.AreEqual(new[] { 0.08f, 1f }, a.Scale);
      Assert.AreEqual(new[] { 3f / 4, 4f / 3 }, a.Ratio);
      Assert.AreEqual(0L, a.Padding);
      Assert.AreEqual(0f, a.FlipXProbability);
      Assert.AreEqual(0f, a.FlipYProbability);
      Assert.AreEqual(new[] { 1f, 1f }, a.Brightness);
      Assert.AreEqual(new[] { 1f, 1f }, a.Contrast);
      Assert.AreEqual(new[] { 1f, 1f }, a.Saturation);
      Assert.AreEqual(new[] { 0f, 0f }, a.Hue);
      Assert.AreEqual(0f, a.GrayscaleProbability);
      Assert.AreEqual(0f, a.EraseProbability);
      Assert.AreEqual(new[] { 0.02f, 0.33f }, a.EraseScale);
      Assert.AreEqual(new[] { 0.3f, 3.3f }, a.EraseRatio);
      Assert.AreEqual(EraseFill.Value, a.EraseFill);
      Assert.AreEqual(new[] { 0f, 0f, 0f, 0f }, a.EraseValue);
      Assert.AreEqual(0L, a.DrawnCount);
      a.Seed = ulong.MaxValue;
      a.Crop = AugmentCrops.Parse("Random");
      a.EraseFill = EraseFills.Parse("random");
      a.EraseValue = new[] { 0.5f };  // one value is every channel's
      Assert.AreEqual(ulong.MaxValue, a.Seed);
      Assert.AreEqual(AugmentCrop.CropRandom, a.Crop);
      Assert.AreEqual(EraseFill.Random, a.EraseFill);
      Assert.AreEqual(new[] { 0.5f, 0.5f, 0.5f, 0.5f }, a.EraseValue);
      StringAssert.StartsWith("Augment(seed 18446744073709551615, step 0", a.ToString());
    }
  }

  [Test]
  public void TheSameSeedAndStepDrawTheSame() {
    using (Augment a = Busy(7), b = Busy(7), c = Busy(8)) {
      AugmentParams[] first = Draw(a);
      Assert.AreEqual(first, Draw(b));
      Assert.AreEqual(first[0].GetHashCode(), Draw(b)[0].GetHashCode());
      AugmentParams[] next = Draw(c);
      for (int i = 0; i < N; ++i) Assert.AreNotEqual(first[i], next[i], "sample " + i + " at steps 7 and 8");
      b.FirstIndex = 1;  // sample i draws as index FirstIndex + i
      Assert.AreEqual(first[1], Draw(b)[0]);
      foreach (AugmentParams p in first) {
        long[] crop = p.Crop;
        Assert.IsTrue(crop[2] > 0 && crop[0] + crop[2] <= W && crop[3] > 0 && crop[1] + crop[3] <= H, p.ToString());
        Assert.IsTrue(p.Brightness >= 0.6f && p.Brightness <= 1.4f, p.ToString());
        Assert.IsTrue(p.Hue >= -0.1f && p.Hue <= 0.1f, p.ToString());
        Assert.AreEqual(4, p.JitterOrder.Length);
        Assert.AreEqual((p.Flip & 1) != 0, p.FlipX);
      }
    }
  }

  [Test]
  public void AConversionDrawsAsAugmentDraw() {
    byte[] data = Pixels();
    using (Context ctx = FerryTests.CpuContext())
    using (var t = new Transform())
    using (Augment a = Busy(3)) {
      t.SetResize(4, 4).Augment = a;
      Assert.AreSame(a, t.Augment);
      Assert.AreEqual(0, a.Drawn().Length);  // nothing drawn before a call
      a.RequestDrawn(1);                      // grows to the batch's 4 samples
      float[] once = Convert(ctx, data, t);
      Assert.AreEqual(N, a.DrawnCount);
      Assert.AreEqual(Draw(a), a.Drawn());
      Assert.AreEqual(a.Drawn()[2], a.Drawn(2));
      Assert.Throws<OutOfRangeException>(() => a.Drawn(N));
      Assert.AreEqual(once, Convert(ctx, data, t));  // the same step: the same values
      a.Step = 4;
      Assert.AreNotEqual(once, Convert(ctx, data, t));
      GCHandle pin = GCHandle.Alloc(data, GCHandleType.Pinned);
      try {
        using (var source = new Source().SetShape(N, H, W, 3)) {
          source.Data = pin.AddrOfPinnedObject();
          source.Bytes = (ulong)data.Length;
          using (Batch batch = ctx.Submit(source, t)) {
            batch.Wait();
            Assert.AreEqual(a.Drawn(), batch.Drawn());  // the batch keeps what its submit drew
          }
          a.Step = 5;
          using (TensorInfo info = Library.TransformOutputInfo(source, t))  // it validates, and draws, as a call
            Assert.AreEqual(new long[] { N, 4, 4, 3 }, info.Shape());
          Assert.AreEqual(Draw(a), a.Drawn());
        }
      } finally {
        pin.Free();
      }
      a.RequestDrawn(0);  // stops recording
      using (var source = new Source().SetShape(N, H, W, 3))
      using (Batch batch = ctx.Submit(source, data, t)) {
        Assert.IsNull(batch.Drawn());
        Assert.AreEqual(0L, a.DrawnCount);
      }
    }
  }

  [Test]
  public void FlipProbabilityOneIsTheTransformsMirrorX() {
    byte[] data = Pixels();
    using (Context ctx = FerryTests.CpuContext())
    using (Transform flipped = new Transform(), mirrored = new Transform())
    using (var a = new Augment { Seed = 9, FlipXProbability = 1 }) {
      flipped.Augment = a;
      mirrored.Mirror = (int)Mirror.X;
      Assert.AreEqual(Convert(ctx, data, mirrored), Convert(ctx, data, flipped));
      a.RequestDrawn(N);
      Convert(ctx, data, flipped);
      foreach (AugmentParams p in a.Drawn()) Assert.AreEqual((int)Mirror.X, p.Flip);
    }
  }

  [Test]
  public void BrightnessTwoDoublesAndClamps() {
    byte[] data = Pixels(), doubled = new byte[data.Length];
    for (int i = 0; i < data.Length; ++i) doubled[i] = (byte)Math.Min(255, 2 * data[i]);
    using (Context ctx = FerryTests.CpuContext())
    using (Transform plain = new Transform(), bright = new Transform())
    using (var a = new Augment { Brightness = new[] { 2f, 2f } }) {
      bright.Augment = a;
      float[] got = Convert(ctx, data, bright);
      Assert.AreEqual(Convert(ctx, doubled, plain), got);
      for (int i = 0; i < got.Length; ++i) Assert.AreEqual(Math.Min(255, 2 * data[i]) / 255f, got[i], 1e-6f);
    }
  }

  /// <summary>The exception T that bad gives at Submit and at Draw; its message names field.</summary>
  static void Rejects<T>(string field, Action<Augment> bad) where T : FerryException {
    byte[] data = Pixels();
    using (Context ctx = FerryTests.CpuContext())
    using (var t = new Transform())
    using (var a = new Augment()) {
      bad(a);
      t.SetResize(4, 4).Augment = a;
      var e = Assert.Throws<T>(() => Convert(ctx, data, t));
      StringAssert.Contains(field, e.Message);
      e = Assert.Throws<T>(() => Draw(a));
      StringAssert.Contains(field, e.Message);
    }
  }

  [Test]
  public void BadFieldsRaiseFerrysMessage() {
    Rejects<InvalidArgumentException>("augment.scale[1] is 1.5", a => a.Scale = new[] { 0.5f, 1.5f });
    Rejects<InvalidArgumentException>("augment.brightness is [1.4, 0.6]: the range is inverted",
                                      a => a.Brightness = new[] { 1.4f, 0.6f });
    Rejects<InvalidArgumentException>("augment.hue[0] is -0.7", a => a.Hue = new[] { -0.7f, 0f });
    Rejects<InvalidArgumentException>("augment.flip_x_probability is 2", a => a.FlipXProbability = 2);
    Rejects<InvalidArgumentException>("augment.padding is 4", a => a.Padding = 4);  // only a CropRandom crop is padded
    Rejects<InvalidArgumentException>("augment.erase_value[0] is ", a => a.EraseValue = new[] { float.NaN });
    // A value outside the enum is ferry's UNSUPPORTED, as for every enum field.
    Rejects<UnsupportedException>("augment.crop is 7", a => a.Crop = (AugmentCrop)7);
    Rejects<UnsupportedException>("augment.erase_fill is 5", a => a.EraseFill = (EraseFill)5);
    StringAssert.Contains("augment.crop is \"zoom\"",
                          Assert.Throws<InvalidArgumentException>(() => AugmentCrops.Parse("zoom")).Message);
    using (var a = new Augment()) {
      var e = Assert.Throws<InvalidArgumentException>(() => a.Scale = new[] { 0.5f });
      StringAssert.Contains("augment.scale has 1 values: a range is 2", e.Message);
      e = Assert.Throws<InvalidArgumentException>(() => a.EraseValue = new[] { 1f, 2f, 3f, 4f, 5f });
      StringAssert.Contains("augment.erase_value has 5 entries", e.Message);
      e = Assert.Throws<InvalidArgumentException>(() => a.Hue = null);
      StringAssert.Contains("augment.hue is null", e.Message);
      e = Assert.Throws<InvalidArgumentException>(() => Augment.Draw(a, new long[] { 1 }, new long[0], 1, 1));
      StringAssert.Contains("h has 1 entries but w has 0", e.Message);
      Assert.Throws<InvalidArgumentException>(() => a.RequestDrawn(-1));
    }
  }

  [Test]
  public void ADisposedAugmentIsRefusedAndAHeldOneStaysAlive() {
    byte[] data = Pixels();
    using (Context ctx = FerryTests.CpuContext())
    using (Transform held = new Transform(), mirrored = new Transform()) {
      held.Augment = new Augment { FlipXProbability = 1 };  // only the Transform refers to it
      for (int i = 0; i < 3; ++i) {
        GC.Collect();
        GC.WaitForPendingFinalizers();
      }
      mirrored.Mirror = (int)Mirror.X;
      Assert.AreEqual(Convert(ctx, data, mirrored), Convert(ctx, data, held));
      held.Augment.Dispose();
      Assert.Throws<InvalidHandleException>(() => Console.WriteLine(held.Augment.Seed));  // not a crash
      Assert.Throws<InvalidHandleException>(() => held.Augment.Scale = new[] { 0.5f, 1f });
      var e = Assert.Throws<InvalidHandleException>(() => Convert(ctx, data, held));
      StringAssert.Contains("transform.augment is disposed", e.Message);
      Assert.Throws<InvalidHandleException>(() => held.Augment = held.Augment);
      held.Augment = null;
      Assert.AreEqual(data[0] / 255f, Convert(ctx, data, held)[0], 1e-6f);
    }
  }

  [Test]
  public void PrefetchStepsTheAugmentPerBatch() {
    var list = new List<Source>();
    for (int i = 0; i < 4; ++i) list.Add(new Source().SetShape(N, H, W, 3).SetBuffer(Pixels()));
    try {
      using (Context ctx = FerryTests.CpuContext())
      using (var t = new Transform())
      using (Augment a = Busy(10), expect = Busy(0)) {
        t.SetResize(4, 4);
        a.RequestDrawn(N);
        int seen = 0;
        foreach (Batch batch in ctx.Prefetch(list, t, a)) {
          using (batch) {
            batch.Wait();
            expect.Step = (ulong)(10 + seen);
            Assert.AreEqual(Draw(expect), batch.Drawn(), "batch " + seen);
            seen++;
          }
        }
        Assert.AreEqual(4, seen);
        Assert.AreEqual(14UL, a.Step);
        Assert.IsNull(t.Augment);  // held only while each batch was submitted
        // Leaving early: the batches submitted ahead and never yielded give their steps back.
        foreach (Batch batch in ctx.Prefetch(list, t, a, null, 2)) {
          using (batch) {
            Assert.AreEqual(N, batch.Drawn().Length);
            Assert.AreEqual(17UL, a.Step);  // this one and two ahead
          }
          break;
        }
        Assert.AreEqual(15UL, a.Step);
        // Without a transform: the defaults (no resize; a flip needs none).
        using (var flip = new Augment { FlipXProbability = 1 }) {
          foreach (Batch batch in ctx.Prefetch(list, null, flip, depth: 1)) batch.Dispose();
          Assert.AreEqual(4UL, flip.Step);
        }
      }
    } finally {
      foreach (Source s in list) s.Dispose();
    }
  }
}

}
