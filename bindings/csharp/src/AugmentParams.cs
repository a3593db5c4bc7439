using System;
using System.Runtime.InteropServices;

namespace Ferry {

/// <summary>ferry_augment_params as the library lays it out (checked once against its offsets).</summary>
[StructLayout(LayoutKind.Sequential)]
struct AugmentParamsNative {
  public long CropX, CropY, CropW, CropH;
  public int Flip, Grayscale;
  public float Brightness, Contrast, Saturation, Hue;
  public int Order0, Order1, Order2, Order3;
  public int Erased;
  public long EraseX, EraseY, EraseW, EraseH;
}

/// <summary>What one sample drew (ferry_augment_params): from Augment.Drawn, Batch.Drawn or
/// Augment.Draw. Factors of operations that are off read 1 (hue 0). A value: equal when every
/// field is.</summary>
public sealed class AugmentParams : IEquatable<AugmentParams> {
  internal static readonly int Size = CheckLayout();

  /// <summary>The size of AugmentParamsNative, after checking its offsets against the library's.</summary>
  static int CheckLayout() {
    string[] fields = { "CropX", "Flip", "Grayscale", "Brightness", "Contrast", "Saturation", "Hue", "Order0",
                        "Erased", "EraseX" };
    int size = Marshal.SizeOf(typeof(AugmentParamsNative));
    bool same = size == Library.AugmentParamsLayout(0);
    for (int i = 0; i < fields.Length; ++i)
      same &= Marshal.OffsetOf(typeof(AugmentParamsNative), fields[i]).ToInt64() == Library.AugmentParamsLayout(i + 1);
    if (!same) throw new InternalException("ferry_augment_params is laid out unlike AugmentParamsNative");
    return size;
  }

  readonly AugmentParamsNative p;

  AugmentParams(AugmentParamsNative p) { this.p = p; }

  /// <summary>count entries of the native array at address.</summary>
  internal static AugmentParams[] Read(IntPtr address, long count) {
    var all = new AugmentParams[count];
    for (long i = 0; i < count; ++i) {
      var at = new IntPtr(address.ToInt64() + i * Size);
      all[i] = new AugmentParams((AugmentParamsNative)Marshal.PtrToStructure(at, typeof(AugmentParamsNative)));
    }
    return all;
  }

  internal static AugmentParams[] Of(AugmentParamsNative[] raw) {
    return Array.ConvertAll(raw, r => new AugmentParams(r));
  }

  /// <summary>The window x, y, w, h in source pixels (CropRandom and CropCenter may reach outside:
  /// 0 there).</summary>
  public long[] Crop { get { return new[] { p.CropX, p.CropY, p.CropW, p.CropH }; } }
  /// <summary>The Mirror bits drawn (the transform's own mirror is applied on top).</summary>
  public int Flip { get { return p.Flip; } }
  public bool FlipX { get { return (p.Flip & (int)Mirror.X) != 0; } }
  public bool FlipY { get { return (p.Flip & (int)Mirror.Y) != 0; } }
  public bool Grayscale { get { return p.Grayscale != 0; } }
  public float Brightness { get { return p.Brightness; } }
  public float Contrast { get { return p.Contrast; } }
  public float Saturation { get { return p.Saturation; } }
  /// <summary>In turns.</summary>
  public float Hue { get { return p.Hue; } }
  /// <summary>The order the four colour operations ran (those that are off last).</summary>
  public JitterOp[] JitterOrder {
    get { return new[] { (JitterOp)p.Order0, (JitterOp)p.Order1, (JitterOp)p.Order2, (JitterOp)p.Order3 }; }
  }
  /// <summary>Whether Erase was applied.</summary>
  public bool Erased { get { return p.Erased != 0; } }
  /// <summary>The erased box x, y, w, h in output pixels (0s where none).</summary>
  public long[] Erase { get { return new[] { p.EraseX, p.EraseY, p.EraseW, p.EraseH }; } }

  public bool Equals(AugmentParams other) {
    return other != null && p.Equals(other.p);
  }
  public override bool Equals(object other) { return Equals(other as AugmentParams); }
  public override int GetHashCode() { return p.GetHashCode(); }

  public override string ToString() {
    return "AugmentParams(crop [" + string.Join(", ", Crop) + "], flip " + Flip + ", grayscale " + Grayscale
        + ", brightness " + Brightness + ", contrast " + Contrast + ", saturation " + Saturation + ", hue " + Hue
        + ", order [" + string.Join(", ", JitterOrder) + "]"
        + (Erased ? ", erase [" + string.Join(", ", Erase) + "]" : "") + ")";
  }
}

}
