package io.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Camera and video frames (issue 15: ferry_source.format) on the CPU backend: an NV12 frame of 4 x 2
 * pixels against RGB worked out here from the BT.601 (and BT.709) formula of
 * include/ferry/pixel_format.h, in one buffer and with its planes apart.
 */
class FrameFormatTest {
  /** Y: 2 rows of 4; then one row of U,V pairs (chroma for the 2 x 2 blocks). */
  private static final int[] Y = {16, 60, 120, 235, 81, 145, 41, 210};
  private static final int[] UV = {90, 240, 54, 34};

  private static byte[] nv12() {
    byte[] frame = new byte[12];
    for (int i = 0; i < 8; ++i) frame[i] = (byte) Y[i];
    for (int i = 0; i < 4; ++i) frame[8 + i] = (byte) UV[i];
    return frame;
  }

  private static int fixed(double v) { return (int) Math.round(v * (1 << 20)); }

  private static int sat(long v) { return (int) Math.max(0, Math.min(255, v)); }

  /**
   * The RGB pixel_format.h defines: coefficients from Kr and Kb rounded to 20 fractional bits, then
   * R = (y' + CRV v + 2^19) >> 20, ... with y' = max(0, Y - yo) CY, u = U - 128, v = V - 128.
   */
  private static byte[] expected(double kr, double kb, boolean limited) {
    double kg = 1 - kr - kb, ys = limited ? 255.0 / 219 : 1, cs = limited ? 255.0 / 224 : 1;
    int cy = fixed(ys), crv = fixed(2 * cs * (1 - kr)), cgu = fixed(-2 * cs * kb * (1 - kb) / kg);
    int cgv = fixed(-2 * cs * kr * (1 - kr) / kg), cbu = fixed(2 * cs * (1 - kb)), yo = limited ? 16 : 0;
    byte[] rgb = new byte[2 * 4 * 3];
    for (int y = 0; y < 2; ++y) {
      for (int x = 0; x < 4; ++x) {
        long luma = (long) Math.max(0, Y[4 * y + x] - yo) * cy;
        long u = UV[2 * (x / 2)] - 128, v = UV[2 * (x / 2) + 1] - 128;
        int at = 3 * (4 * y + x);
        rgb[at] = (byte) sat((luma + crv * v + (1 << 19)) >> 20);
        rgb[at + 1] = (byte) sat((luma + cgu * u + cgv * v + (1 << 19)) >> 20);
        rgb[at + 2] = (byte) sat((luma + cbu * u + (1 << 19)) >> 20);
      }
    }
    return rgb;
  }

  /** Converts with a uint8 NHWC transform; checks the shape (1, 2, 4, 3) and returns the bytes. */
  private static byte[] convert(Context ctx, Source source, byte[] data) {
    try (Transform t = new Transform()) {
      t.setOutDtype(DType.UINT8);
      t.setOutLayout(Layout.NHWC);
      try (Batch batch = data != null ? ctx.submit(source, data, t) : ctx.submit(source, t)) {
        batch.await();
        try (TensorInfo info = batch.output()) {
          assertArrayEquals(new long[] {1, 2, 4, 3}, info.shape());
          byte[] values = new byte[(int) info.getBytes()];
          Ferry.asByteBuffer(info.getData(), info.getBytes()).get(values);
          return values;
        }
      }
    }
  }

  @Test
  void nv12MatchesTheBt601Formula() {
    try (Context ctx = FerryTest.cpuContext(); Source source = new Source().setFrame(1, 2, 4, PixelFormat.NV12)) {
      assertEquals(PixelFormat.NV12, source.getFormat());
      assertEquals(3, source.getC());
      assertEquals(ColorMatrix.BT601, source.getColorMatrix());
      assertEquals(ColorRange.LIMITED, source.getColorRange());
      assertEquals(ChromaFilter.CHROMA_NEAREST, source.getChromaFilter());
      byte[] want = expected(0.299, 0.114, true);
      assertArrayEquals(want, convert(ctx, source, nv12()));
      // The same from a direct ByteBuffer.
      java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocateDirect(12);
      buffer.put(nv12()).flip();
      source.setBuffer(buffer);
      assertArrayEquals(want, convert(ctx, source, null));
    }
  }

  @Test
  void colourOptionsByEnumAndByName() {
    try (Context ctx = FerryTest.cpuContext(); Source source = new Source().setFrame(1, 2, 4, "nv12")) {
      source.setColorMatrix(ColorMatrix.BT709);
      source.setColorRange(ColorRange.FULL);
      byte[] want = expected(0.2126, 0.0722, false);
      assertArrayEquals(want, convert(ctx, source, nv12()));
      source.setColorMatrix("bt601").setColorRange("limited").setChromaFilter("nearest");
      assertEquals(ColorMatrix.BT601, source.getColorMatrix());
      assertArrayEquals(expected(0.299, 0.114, true), convert(ctx, source, nv12()));
      source.setChromaFilter(ChromaFilter.CHROMA_LINEAR); // the U,V of the 2 x 2 blocks blend across
      assertTrue(!java.util.Arrays.equals(expected(0.299, 0.114, true), convert(ctx, source, nv12())));
    }
  }

  @Test
  void planesApartGiveTheSameFrame() {
    // Y rows 6 bytes apart (12 bytes), the U,V row at byte 16: one buffer of 20 bytes.
    byte[] apart = new byte[20];
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 4; ++x) apart[6 * y + x] = (byte) Y[4 * y + x];
    for (int i = 0; i < 4; ++i) apart[16 + i] = (byte) UV[i];
    try (Context ctx = FerryTest.cpuContext(); Source source = new Source().setFrame(1, 2, 4, PixelFormat.NV12)) {
      source.setPlaneOffsets(0, 16).setPlanePitches(6, 5);
      assertArrayEquals(new long[] {0, 16, 0}, source.planeOffsets());
      assertArrayEquals(new long[] {6, 5, 0}, source.planePitches());
      assertArrayEquals(expected(0.299, 0.114, true), convert(ctx, source, apart));
    }
  }

  @Test
  void badFramesThrowNamingTheField() {
    try (Context ctx = FerryTest.cpuContext(); Source source = new Source().setFrame(1, 2, 4, PixelFormat.NV12)) {
      FerryException.InvalidArgument e =
          assertThrows(FerryException.InvalidArgument.class, () -> PixelFormat.parse("nv16"));
      assertTrue(e.getMessage().contains("format is \"nv16\""), e.getMessage());
      e = assertThrows(FerryException.InvalidArgument.class, () -> source.setFormat("rgb24"));
      assertTrue(e.getMessage().contains("format is \"rgb24\""), e.getMessage());
      e = assertThrows(FerryException.InvalidArgument.class, () -> source.setColorMatrix("bt2100"));
      assertTrue(e.getMessage().contains("color_matrix is \"bt2100\""), e.getMessage());
      e = assertThrows(FerryException.InvalidArgument.class, () -> source.setPlaneOffsets(0, 8, 10, 12));
      assertTrue(e.getMessage().contains("plane_offsets has 4 entries"), e.getMessage());
      assertEquals(PixelFormat.NV12, source.getFormat()); // unchanged by the refused calls

      // ferry's own checks: a buffer one byte short, a plane pitch below its row.
      FerryException.SourceTooSmall small =
          assertThrows(FerryException.SourceTooSmall.class, () -> convert(ctx, source, new byte[11]));
      assertTrue(small.getMessage().contains("source.bytes is 11"), small.getMessage());
      source.setPlanePitches(3);
      e = assertThrows(FerryException.InvalidArgument.class, () -> convert(ctx, source, nv12()));
      assertTrue(e.getMessage().contains("source.plane_pitch[0] is 3"), e.getMessage());
    }
  }
}
