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

/// <summary>PixelFormat by name: "channels", "nv12", "nv21", "i420", "yv12", "yuyv", "uyvy",
/// "bayer_rggb", "bayer_bggr", "bayer_grbg" or "bayer_gbrg" (any case; "yuy2" and "yuv420p" too).</summary>
public static class PixelFormats {
  public static PixelFormat Parse(string name) {
    switch (name == null ? "" : name.ToLowerInvariant()) {
      case "channels": return PixelFormat.Channels;
      case "nv12": return PixelFormat.Nv12;
      case "nv21": return PixelFormat.Nv21;
      case "i420": case "yuv420p": return PixelFormat.I420;
      case "yv12": return PixelFormat.Yv12;
      case "yuyv": case "yuy2": return PixelFormat.Yuyv;
      case "uyvy": return PixelFormat.Uyvy;
      case "bayer_rggb": return PixelFormat.BayerRggb;
      case "bayer_bggr": return PixelFormat.BayerBggr;
      case "bayer_grbg": return PixelFormat.BayerGrbg;
      case "bayer_gbrg": return PixelFormat.BayerGbrg;
      default:
        throw new InvalidArgumentException("format is " + (name == null ? "null" : "\"" + name + "\"")
                                           + ": use channels, nv12, nv21, i420, yv12, yuyv, uyvy, bayer_rggb, "
                                           + "bayer_bggr, bayer_grbg or bayer_gbrg");
    }
  }
}

/// <summary>ColorMatrix by name: "bt601", "bt709" or "bt2020" (any case).</summary>
public static class ColorMatrices {
  public static ColorMatrix Parse(string name) {
    switch (name == null ? "" : name.ToLowerInvariant()) {
      case "bt601": return ColorMatrix.Bt601;
      case "bt709": return ColorMatrix.Bt709;
      case "bt2020": return ColorMatrix.Bt2020;
      default:
        throw new InvalidArgumentException("color_matrix is " + (name == null ? "null" : "\"" + name + "\"")
                                           + ": use bt601, bt709 or bt2020");
    }
  }
}

/// <summary>ColorRange by name: "limited" or "full" (any case).</summary>
public static class ColorRanges {
  public static ColorRange Parse(string name) {
    switch (name == null ? "" : name.ToLowerInvariant()) {
      case "limited": return ColorRange.Limited;
      case "full": return ColorRange.Full;
      default:
        throw new InvalidArgumentException("color_range is " + (name == null ? "null" : "\"" + name + "\"")
                                           + ": use limited or full");
    }
  }
}

/// <summary>ChromaFilter by name: "nearest" or "linear" (any case).</summary>
public static class ChromaFilters {
  public static ChromaFilter Parse(string name) {
    switch (name == null ? "" : name.ToLowerInvariant()) {
      case "nearest": return ChromaFilter.ChromaNearest;
      case "linear": return ChromaFilter.ChromaLinear;
      default:
        throw new InvalidArgumentException("chroma_filter is " + (name == null ? "null" : "\"" + name + "\"")
                                           + ": use nearest or linear");
    }
  }
}

/// <summary>AugmentCrop by name: "none", "random_resized", "random" or "center" (any case).</summary>
public static class AugmentCrops {
  public static AugmentCrop Parse(string name) {
    switch (name == null ? "" : name.ToLowerInvariant()) {
      case "none": return AugmentCrop.CropNone;
      case "random_resized": return AugmentCrop.CropRandomResized;
      case "random": return AugmentCrop.CropRandom;
      case "center": return AugmentCrop.CropCenter;
      default:
        throw new InvalidArgumentException("augment.crop is " + (name == null ? "null" : "\"" + name + "\"")
                                           + ": use none, random_resized, random or center");
    }
  }
}

/// <summary>EraseFill by name: "value" or "random" (any case).</summary>
public static class EraseFills {
  public static EraseFill Parse(string name) {
    switch (name == null ? "" : name.ToLowerInvariant()) {
      case "value": return EraseFill.Value;
      case "random": return EraseFill.Random;
      default:
        throw new InvalidArgumentException("augment.erase_fill is " + (name == null ? "null" : "\"" + name + "\"")
                                           + ": use value or random");
    }
  }
}

}  // namespace Ferry
