using System;
using System.Collections.Generic;

namespace Ferry {

/// <summary>Random augmentation drawn per sample in the conversion (ferry/augment.h): its
/// constructor is ferry_augment_init, its scalar fields SWIG's properties (Seed, Step, FirstIndex,
/// Crop, Padding, FlipXProbability, FlipYProbability, GrayscaleProbability, EraseProbability,
/// EraseFill), its ranges the float[] properties below. Each sample's parameters are a function of
/// (Seed, Step, FirstIndex + i): the same on the CPU and a GPU. Give it to Transform.Augment, or to
/// Context.Prefetch. <c>new Augment { Seed = 1, FlipXProbability = 0.5f, Brightness = new[] { 0.6f,
/// 1.4f } }</c>. Bad values raise ferry's exception naming the field at Submit, Convert or Draw.</summary>
public partial class Augment {
  /// <summary>CropRandomResized: the area fraction, 0 &lt; lo &lt;= hi &lt;= 1 (default 0.08, 1).</summary>
  public float[] Scale { get { return Values("scale", 2); } set { Set("scale", value); } }
  /// <summary>CropRandomResized: the aspect w/h, 0 &lt; lo &lt;= hi (default 3/4, 4/3).</summary>
  public float[] Ratio { get { return Values("ratio", 2); } set { Set("ratio", value); } }
  /// <summary>ColorJitter's brightness factor range, lo &gt;= 0; 1, 1 (default) is off.
  /// torchvision's brightness=0.4 is 0.6, 1.4.</summary>
  public float[] Brightness { get { return Values("brightness", 2); } set { Set("brightness", value); } }
  public float[] Contrast { get { return Values("contrast", 2); } set { Set("contrast", value); } }
  public float[] Saturation { get { return Values("saturation", 2); } set { Set("saturation", value); } }
  /// <summary>The hue shift in turns, -0.5 &lt;= lo &lt;= hi &lt;= 0.5; 0, 0 (default) is off.</summary>
  public float[] Hue { get { return Values("hue", 2); } set { Set("hue", value); } }
  /// <summary>The erased box's area fraction (default 0.02, 0.33).</summary>
  public float[] EraseScale { get { return Values("erase_scale", 2); } set { Set("erase_scale", value); } }
  /// <summary>The erased box's aspect h/w (default 0.3, 3.3).</summary>
  public float[] EraseRatio { get { return Values("erase_ratio", 2); } set { Set("erase_ratio", value); } }
  /// <summary>EraseFill.Value's value per output channel, output units: 1 value (every channel) to 4.</summary>
  public float[] EraseValue { get { return Values("erase_value", 4); } set { Set("erase_value", value); } }

  void Set(string field, float[] values) { SetValues(field, values, values == null ? 0UL : (ulong)values.Length); }

  float[] Values(string field, int count) {
    var values = new float[count];
    for (int i = 0; i < count; ++i) values[i] = ValueAt(field, i);
    return values;
  }

  bool recording;
  long capacity, pending, drawnCount;

  /// <summary>Records what each sample draws: every Submit, Convert or TransformOutputInfo with a
  /// Transform that holds this Augment writes one AugmentParams per sample before it returns
  /// (Drawn(), and the Batch's Drawn()). n: the room to make now (it grows for a larger batch); 0
  /// stops recording. An Augment that records serves one call at a time (one thread); one that does
  /// not may serve many.</summary>
  public Augment RequestDrawn(long n) {
    if (n < 0) throw new InvalidArgumentException("n is " + n + ": the samples to make room for, 0 or more");
    ReserveDrawn(n);
    recording = n > 0;
    capacity = n;
    drawnCount = 0;
    return this;
  }

  /// <summary>The samples of the last call that recorded (0 before one, or after one that failed).</summary>
  public long DrawnCount { get { return drawnCount; } }

  /// <summary>What sample i of the last call drew.</summary>
  public AugmentParams Drawn(long i) {
    if (i < 0 || i >= drawnCount)
      throw new OutOfRangeException("index is " + i + ": the last call drew " + drawnCount + " samples" +
                                    (recording ? "" : " (call RequestDrawn first)"));
    return AugmentParams.Read(new IntPtr(DrawnAddress().ToInt64() + i * AugmentParams.Size), 1)[0];
  }

  /// <summary>What each sample of the last call drew, DrawnCount entries.</summary>
  public AugmentParams[] Drawn() {
    return drawnCount == 0 ? new AugmentParams[0] : AugmentParams.Read(DrawnAddress(), drawnCount);
  }

  /// <summary>Before a call on n samples: room for them where recording.</summary>
  internal void Prepare(long n) {
    drawnCount = 0;
    pending = n;
    if (recording && n > capacity) {
      ReserveDrawn(n);
      capacity = n;
    }
  }

  /// <summary>After the call succeeded: what it drew, or null where not recording.</summary>
  internal AugmentParams[] Called() {
    if (!recording) return null;
    drawnCount = Math.Max(0, Math.Min(pending, capacity));
    return Drawn();
  }

  /// <summary>What n samples of heights h[i] and widths w[i] draw for an output of outW x outH, as a
  /// conversion with this augmentation at its Step would (ferry_augment_draw): for labels that must
  /// follow the image before it converts. Bad fields raise ferry's exception naming them, as at
  /// Submit. Thread-safe.</summary>
  public static unsafe AugmentParams[] Draw(Augment augment, long[] h, long[] w, long outW, long outH) {
    if (h == null || w == null) throw new InvalidArgumentException("h and w are null: one of each per sample");
    if (h.Length != w.Length)
      throw new InvalidArgumentException("h has " + h.Length + " entries but w has " + w.Length +
                                         ": one of each per sample");
    var sizes = new long[2 * h.Length];
    Array.Copy(h, sizes, h.Length);
    Array.Copy(w, 0, sizes, h.Length, w.Length);
    var raw = new AugmentParamsNative[h.Length];
    int size = AugmentParams.Size;
    fixed (AugmentParamsNative* out_ = raw) {
      Library.AugmentDraw(augment, sizes, (ulong)sizes.Length, outW, outH, (IntPtr)out_, (ulong)(raw.Length * size));
    }
    return AugmentParams.Of(raw);
  }

  public override string ToString() {
    if (swigCPtr.Handle == IntPtr.Zero) return "Augment(disposed)";
    return "Augment(seed " + Seed + ", step " + Step + ", first index " + FirstIndex + ", crop " + Crop + ", flip " +
           FlipXProbability + "/" + FlipYProbability + ", brightness [" + string.Join(", ", Brightness) +
           "], contrast [" + string.Join(", ", Contrast) + "], saturation [" + string.Join(", ", Saturation) +
           "], hue [" + string.Join(", ", Hue) + "], grayscale " + GrayscaleProbability + ", erase " +
           EraseProbability + ")";
  }

  internal static bool IsLive(Augment augment) { return getCPtr(augment).Handle != IntPtr.Zero; }
}

public partial class Transform {
  Augment augment;

  /// <summary>Drawn and applied per sample in the conversion (ferry_transform.augment); null: none.
  /// The Transform holds the Augment (it stays alive as long as the Transform) and reads its fields
  /// at each call, so changing the Augment (its Step) changes the next call. Setting a disposed
  /// Augment throws InvalidHandleException.</summary>
  public Augment Augment {
    get { return augment; }
    set {
      if (value != null && !global::Ferry.Augment.IsLive(value))
        throw new InvalidHandleException("augment is disposed: a live Augment is required");
      Attach(value);
    }
  }

  internal void Attach(Augment value) {
    SetAugmentAddress(value != null && global::Ferry.Augment.IsLive(value) ? value : null);
    augment = value;
  }

  internal void PrepareAugment(Source source) {
    if (augment == null) return;
    if (!global::Ferry.Augment.IsLive(augment))
      throw new InvalidHandleException("transform.augment is disposed: set a live Augment, or null");
    augment.Prepare(source == null ? 0 : source.N);
  }

  internal void AugmentCalled(Batch batch) {
    if (augment == null) return;
    AugmentParams[] drawn = augment.Called();
    if (batch != null) batch.drawn = drawn;
  }
}

public partial class Batch {
  internal AugmentParams[] drawn;

  /// <summary>What each sample drew, where the Transform's Augment recorded (Augment.RequestDrawn):
  /// written before Submit returned. Null otherwise.</summary>
  public AugmentParams[] Drawn() { return drawn == null ? null : (AugmentParams[])drawn.Clone(); }
}

public partial class Context {
  /// <summary>Prefetch with augment drawn per sample: each batch draws at the Augment's Step when it
  /// is submitted, and the Step then advances by one (so the next epoch draws anew); leaving the loop
  /// sets it back by the batches submitted ahead and never yielded, so it is the step to save for a
  /// resume. transform (null: the defaults) holds the Augment only while each batch is submitted;
  /// what a batch drew is its Drawn() where the Augment records.</summary>
  public IEnumerable<Batch> Prefetch(IEnumerable<Source> sources, Transform transform, Augment augment,
                                     SubmitOptions options = null, int depth = 2) {
    return Prefetching.Checked(this, sources, transform, augment, options, depth);
  }
}

}
