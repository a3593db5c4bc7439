/* ferry's Java binding: the frame enums of ferry_source (ferry/pixel_format.h,
 * included by ../ferry.i) parsed from their names, as the Python keywords
 * take them. Included by ferry_java.i. */

%typemap(javacode) enum ferry_pixel_format %{
  /**
   * The format named "channels", "nv12", "nv21", "i420", "yv12", "yuyv", "uyvy", "bayer_rggb",
   * "bayer_bggr", "bayer_grbg" or "bayer_gbrg" (any case; "yuy2" and "yuv420p" too). Anything else
   * throws FerryException.InvalidArgument naming format and these names.
   */
  public static PixelFormat parse(String name) {
    String key = name == null ? "" : name.toLowerCase(java.util.Locale.ROOT);
    switch (key) {
      case "yuy2": return YUYV;
      case "yuv420p": return I420;
      default:
        for (PixelFormat f : values())
          if (f.name().toLowerCase(java.util.Locale.ROOT).equals(key)) return f;
        throw new FerryException.InvalidArgument("format is " + (name == null ? "null" : "\"" + name + "\"")
            + ": use channels, nv12, nv21, i420, yv12, yuyv, uyvy, bayer_rggb, bayer_bggr, bayer_grbg or bayer_gbrg");
    }
  }
%}
%typemap(javacode) enum ferry_color_matrix %{
  /** The matrix named "bt601", "bt709" or "bt2020" (any case); else FerryException.InvalidArgument. */
  public static ColorMatrix parse(String name) {
    switch (name == null ? "" : name.toLowerCase(java.util.Locale.ROOT)) {
      case "bt601": return BT601;
      case "bt709": return BT709;
      case "bt2020": return BT2020;
      default:
        throw new FerryException.InvalidArgument("color_matrix is " + (name == null ? "null" : "\"" + name + "\"")
            + ": use bt601, bt709 or bt2020");
    }
  }
%}
%typemap(javacode) enum ferry_color_range %{
  /** The range named "limited" or "full" (any case); else FerryException.InvalidArgument. */
  public static ColorRange parse(String name) {
    switch (name == null ? "" : name.toLowerCase(java.util.Locale.ROOT)) {
      case "limited": return LIMITED;
      case "full": return FULL;
      default:
        throw new FerryException.InvalidArgument("color_range is " + (name == null ? "null" : "\"" + name + "\"")
            + ": use limited or full");
    }
  }
%}
%typemap(javacode) enum ferry_chroma_filter %{
  /** The filter named "nearest" or "linear" (any case); else FerryException.InvalidArgument. */
  public static ChromaFilter parse(String name) {
    switch (name == null ? "" : name.toLowerCase(java.util.Locale.ROOT)) {
      case "nearest": return CHROMA_NEAREST;
      case "linear": return CHROMA_LINEAR;
      default:
        throw new FerryException.InvalidArgument("chroma_filter is " + (name == null ? "null" : "\"" + name + "\"")
            + ": use nearest or linear");
    }
  }
%}
