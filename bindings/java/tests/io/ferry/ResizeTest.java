package io.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Resize in the fused pass (issue 14) on the CPU backend, against values worked out by hand. */
class ResizeTest {
  /** One 2 x 4 gray image. */
  private static final byte[] IMAGE = bytes(0, 40, 80, 120, 200, 100, 60, 20);

  private static byte[] bytes(int... values) {
    byte[] out = new byte[values.length];
    for (int i = 0; i < values.length; ++i) out[i] = (byte) values[i];
    return out;
  }

  /** Converts IMAGE (1 x 2 x 4 x 1) with t (uint8 NHWC out); returns the shape and the bytes. */
  private static byte[] convertUint8(Context ctx, Transform t, long[] shape) {
    t.setOutDtype(DType.UINT8);
    t.setOutLayout(Layout.NHWC);
    try (Source source = new Source().setShape(1, 2, 4, 1); Batch batch = ctx.submit(source, IMAGE, t)) {
      batch.await();
      try (TensorInfo info = batch.output()) {
        assertArrayEquals(shape, info.shape());
        byte[] values = new byte[(int) info.getBytes()];
        Ferry.asByteBuffer(info.getData(), info.getBytes()).get(values);
        return values;
      }
    }
  }

  @Test
  void linearHalvesEachAxis() {
    // 4 x 2 -> 2 x 1: each output pixel's center falls between four source pixels, weights 1/4.
    // (0 + 40 + 200 + 100) / 4 = 85, (80 + 120 + 60 + 20) / 4 = 70.
    try (Context ctx = FerryTest.cpuContext(); Transform t = new Transform()) {
      t.setResize(2, 1).setInterpolation("linear");
      assertEquals(Interpolation.LINEAR, t.getInterpolation());
      assertArrayEquals(bytes(85, 70), convertUint8(ctx, t, new long[] {1, 1, 2, 1}));
    }
  }

  @Test
  void letterboxKeepsTheAspectAndFillsTheBars() {
    // 4 x 2 into 4 x 4: scale 1, the image in rows 1 and 2, bars of 7 above and below.
    try (Context ctx = FerryTest.cpuContext(); Transform t = new Transform()) {
      t.setResize(4, 4).setLetterboxValue(7f);
      t.setResizeMode(ResizeMode.LETTERBOX);
      t.setInterpolation(Interpolation.NEAREST);
      byte[] want = bytes(7, 7, 7, 7, 0, 40, 80, 120, 200, 100, 60, 20, 7, 7, 7, 7);
      assertArrayEquals(want, convertUint8(ctx, t, new long[] {1, 4, 4, 1}));
      t.setLetterboxAlign(LetterboxAlign.TOP_LEFT); // the bars after the image
      want = bytes(0, 40, 80, 120, 200, 100, 60, 20, 7, 7, 7, 7, 7, 7, 7, 7);
      assertArrayEquals(want, convertUint8(ctx, t, new long[] {1, 4, 4, 1}));
    }
  }

  @Test
  void fractionalWindowAndArea() {
    // The window x 1..3, y 0..2 (2 x 2) to 1 x 1 by AREA: (40 + 80 + 100 + 60) / 4 = 70.
    // The window x 0.5..2.5, y 0..1 to 1 x 1: 0.5 * 0 + 40 + 0.5 * 80, over 2 = 40.
    try (Context ctx = FerryTest.cpuContext(); Transform t = new Transform()) {
      t.setResize(1, 1).setWindow(1f, 0f, 2f, 2f).setInterpolation("area");
      assertArrayEquals(bytes(70), convertUint8(ctx, t, new long[] {1, 1, 1, 1}));
      t.setWindow(0.5f, 0f, 2f, 1f);
      assertArrayEquals(bytes(40), convertUint8(ctx, t, new long[] {1, 1, 1, 1}));
      t.setPerSampleWindow(new float[] {1f, 0f, 2f, 2f}); // replaces the batch's window
      assertArrayEquals(bytes(70), convertUint8(ctx, t, new long[] {1, 1, 1, 1}));
    }
  }

  @Test
  void badResizeInputThrowsNamingIt() {
    try (Context ctx = FerryTest.cpuContext(); Transform t = new Transform();
         Source source = new Source().setShape(1, 2, 4, 1)) {
      FerryException.InvalidArgument e =
          assertThrows(FerryException.InvalidArgument.class, () -> t.setInterpolation("bilinear_aa"));
      assertTrue(e.getMessage().contains("\"bilinear_aa\""), e.getMessage());
      assertThrows(FerryException.InvalidArgument.class, () -> ResizeMode.parse("fit"));
      e = assertThrows(FerryException.InvalidArgument.class, () -> t.setPerSampleWindow(new float[5]));
      assertTrue(e.getMessage().contains("per_sample_window has 5 values"), e.getMessage());

      t.setResize(2, 2).setWindow(2f, 0f, 3f, 2f); // x 2..5 of a 4 wide image
      FerryException.OutOfRange r = assertThrows(FerryException.OutOfRange.class, () -> ctx.submit(source, IMAGE, t));
      assertTrue(r.getMessage().contains("transform.window"), r.getMessage());
      assertTrue(r.getMessage().contains("inside the 4x2 image"), r.getMessage());

      t.setWindow(0f, 0f, 0f, 0f).setLetterboxValue(1f, 2f); // 2 values, 1 channel
      e = assertThrows(FerryException.InvalidArgument.class, () -> ctx.submit(source, IMAGE, t));
      assertTrue(e.getMessage().contains("letterbox_value has 2 values"), e.getMessage());
      t.setLetterboxValue(0f);

      t.setResize(0, 2);
      e = assertThrows(FerryException.InvalidArgument.class, () -> ctx.submit(source, IMAGE, t));
      assertTrue(e.getMessage().contains("transform.resize_w is 0"), e.getMessage());
    }
  }
}
