using System;

namespace Ferry {

/// <summary>DType by name: transform.OutDtype = DTypes.Parse("f16").</summary>
public static class DTypes {
  /// <summary>"float32", "float16", "bfloat16" or "uint8" (or "f32", "f16", "bf16", "u8"; any
  /// case). Anything else throws InvalidArgumentException, which lists these names.</summary>
  public static DType Parse(string name) {
    switch (name == null ? "" : name.ToLowerInvariant()) {
      case "float32": case "f32": return DType.Float32;
      case "float16": case "f16": return DType.Float16;
      case "bfloat16": case "bf16": return DType.BFloat16;
      case "uint8": case "u8": return DType.UInt8;
      default:
        throw new InvalidArgumentException("dtype is " + (name == null ? "null" : "\"" + name + "\"")
                                           + ": use float32, float16, bfloat16 or uint8 (or f32, f16, bf16, u8)");
    }
  }
}

/// <summary>Layout by name: "NCHW" or "NHWC" (any case).</summary>
public static class Layouts {
  public static Layout Parse(string name) {
    switch (name == null ? "" : name.ToUpperInvariant()) {
      case "NCHW": return Layout.Nchw;
      case "NHWC": return Layout.Nhwc;
      default:
        throw new InvalidArgumentException("layout is " + (name == null ? "null" : "\"" + name + "\"")
                                           + ": use NCHW or NHWC");
    }
  }
}

/// <summary>Interpolation by name: "nearest", "linear", "cubic", "area" or "linear_antialias" (any
/// case; "bilinear" and "bicubic" too).</summary>
public static class Interpolations {
  public static Interpolation Parse(string name) {
    switch (name == null ? "" : name.ToLowerInvariant()) {
      case "nearest": return Interpolation.Nearest;
      case "linear": case "bilinear": return Interpolation.Linear;
      case "cubic": case "bicubic": return Interpolation.Cubic;
      case "area": return Interpolation.Area;
      case "linear_antialias": return Interpolation.LinearAntialias;
      default:
        throw new InvalidArgumentException("interpolation is " + (name == null ? "null" : "\"" + name + "\"")
                                           + ": use nearest, linear, cubic, area or linear_antialias");
    }
  }
}

}  // namespace Ferry
