package io.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Random augmentation (ferry/augment.h) on the CPU backend: Augment, Transform.setAugment, drawn, prefetch. */
class AugmentTest {
  private static final long N = 4, H = 4, W = 5; // FerryTest.convertNhwc's images

  /** N x H x W x 3 pixels, each a value of its own. */
  private static byte[] pixels() {
    byte[] data = new byte[(int) (N * H * W * 3)];
    for (int i = 0; i < data.length; ++i) data[i] = (byte) (37 * i + 11);
    return data;
  }

  /** Every option on, so each sample draws something of each. */
  private static Augment busy(long step) {
    return new Augment().setSeed(1234).setStep(step).setCrop(AugmentCrop.CROP_RANDOM_RESIZED).setScale(0.3f, 1)
        .setFlipXProbability(0.5f).setFlipYProbability(0.5f).setBrightness(0.6f, 1.4f).setContrast(0.6f, 1.4f)
        .setSaturation(0.6f, 1.4f).setHue(-0.1f, 0.1f).setGrayscaleProbability(0.3f).setEraseProbability(0.5f);
  }

  private static AugmentParams[] draw(Augment augment) {
    long[] h = new long[(int) N], w = new long[(int) N];
    java.util.Arrays.fill(h, H);
    java.util.Arrays.fill(w, W);
    return Augment.draw(augment, h, w, 4, 4);
  }

  /** The float32 NHWC output of the pixels through t (a 4 x 4 resize where resize is set). */
  private static float[] convert(Context ctx, byte[] data, Transform t) {
    t.setOutLayout(Layout.NHWC);
    return FerryTest.convertNhwc(ctx, data, N, 3, t);
  }

  @Test
  void defaultsAreThoseOfAugmentInit() {
    try (Augment a = new Augment()) {
      assertEquals(0, a.getSeed());
      assertEquals(0, a.getStep());
      assertEquals(0, a.getFirstIndex());
      assertEquals(AugmentCrop.CROP_NONE, a.getCrop());
      assertArrayEquals(new float[] {0.08f, 1}, a.getScale());
      assertArrayEquals(new float[] {3f / 4, 4f / 3}, a.getRatio());
      assertEquals(0, a.getPadding());
      assertEquals(0, a.getFlipXProbability());
      assertEquals(0, a.getFlipYProbability());
      assertArrayEquals(new float[] {1, 1}, a.getBrightness());
      assertArrayEquals(new float[] {1, 1}, a.getContrast());
      assertArrayEquals(new float[] {1, 1}, a.getSaturation());
      assertArrayEquals(new float[] {0, 0}, a.getHue());
      assertEquals(0, a.getGrayscaleProbability());
      assertEquals(0, a.getEraseProbability());
      assertArrayEquals(new float[] {0.02f, 0.33f}, a.getEraseScale());
      assertArrayEquals(new float[] {0.3f, 3.3f}, a.getEraseRatio());
      assertEquals(EraseFill.VALUE, a.getEraseFill());
      assertArrayEquals(new float[] {0, 0, 0, 0}, a.getEraseValue());
      assertEquals(0, a.drawnCount());
      // The setters chain and read back; one erase value is every channel's.
      a.setSeed(-1).setCrop("random").setPadding(4).setEraseFill("random").setEraseValue(0.5f);
      assertEquals(-1, a.getSeed()); // 2^64 - 1 in C
      assertEquals(AugmentCrop.CROP_RANDOM, a.getCrop());
      assertEquals(EraseFill.RANDOM, a.getEraseFill());
      assertArrayEquals(new float[] {0.5f, 0.5f, 0.5f, 0.5f}, a.getEraseValue());
      assertTrue(a.toString().startsWith("Augment(seed -1, step 0"));
    }
  }

  @Test
  void theSameSeedAndStepDrawTheSame() {
    try (Augment a = busy(7); Augment b = busy(7); Augment c = busy(8)) {
      AugmentParams[] first = draw(a);
      assertArrayEquals(first, draw(b));
      assertEquals(first[0].hashCode(), draw(b)[0].hashCode());
      AugmentParams[] next = draw(c);
      for (int i = 0; i < N; ++i) assertNotEquals(first[i], next[i], "sample " + i + " at steps 7 and 8");
      // first_index: sample i draws as index first_index + i.
      b.setFirstIndex(1);
      assertEquals(first[1], draw(b)[0]);
      for (AugmentParams p : first) {
        long[] crop = p.crop();
        assertTrue(crop[2] > 0 && crop[0] + crop[2] <= W && crop[3] > 0 && crop[1] + crop[3] <= H, p.toString());
        assertTrue(p.brightness() >= 0.6f && p.brightness() <= 1.4f, p.toString());
        assertTrue(p.hue() >= -0.1f && p.hue() <= 0.1f, p.toString());
        assertEquals(4, p.jitterOrder().length);
        assertEquals((p.flip() & 1) != 0, p.flipX());
      }
    }
  }

  @Test
  void aConversionDrawsAsAugmentDraw() {
    byte[] data = pixels();
    try (Context ctx = FerryTest.cpuContext(); Transform t = new Transform(); Augment a = busy(3)) {
      t.setResize(4, 4).setAugment(a);
      assertSame(a, t.getAugment());
      assertEquals(0, a.drawn().length); // nothing drawn before a call
      a.requestDrawn(1); // grows to the batch's 4 samples
      float[] once = convert(ctx, data, t);
      assertEquals(N, a.drawnCount());
      assertArrayEquals(draw(a), a.drawn());
      assertEquals(a.drawn()[2], a.drawn(2));
      assertThrows(FerryException.OutOfRange.class, () -> a.drawn((int) N));
      // The same step converts to the same values; the next step to others.
      assertArrayEquals(once, convert(ctx, data, t));
      a.setStep(4);
      assertFalse(java.util.Arrays.equals(once, convert(ctx, data, t)));
      // The batch keeps what its submit drew.
      ByteBuffer buffer = ByteBuffer.allocateDirect(data.length).put(data);
      try (Source source = new Source().setShape(N, H, W, 3).setBuffer(buffer.flip());
           Batch batch = ctx.submit(source, t)) {
        batch.await();
        assertArrayEquals(a.drawn(), batch.drawn());
        // The output description draws too (it validates as a call does).
        a.setStep(5);
        try (TensorInfo info = Ferry.transformOutputInfo(source, t)) {
          assertArrayEquals(new long[] {N, 4, 4, 3}, info.shape());
        }
        assertArrayEquals(draw(a), a.drawn());
      }
      a.requestDrawn(0); // stops recording
      try (Source source = new Source().setShape(N, H, W, 3); Batch batch = ctx.submit(source, data, t)) {
        assertNull(batch.drawn());
        assertEquals(0, a.drawnCount());
      }
    }
  }

  @Test
  void flipProbabilityOneIsTheTransformsMirrorX() {
    byte[] data = pixels();
    try (Context ctx = FerryTest.cpuContext(); Transform flipped = new Transform();
         Transform mirrored = new Transform(); Augment a = new Augment().setSeed(9).setFlipXProbability(1)) {
      flipped.setAugment(a);
      mirrored.setMirror(Mirror.X.swigValue());
      assertArrayEquals(convert(ctx, data, mirrored), convert(ctx, data, flipped));
      a.requestDrawn(N);
      convert(ctx, data, flipped);
      for (AugmentParams p : a.drawn()) assertEquals(Mirror.X.swigValue(), p.flip());
    }
  }

  @Test
  void brightnessTwoDoublesAndClamps() {
    byte[] data = pixels(), doubled = new byte[data.length];
    for (int i = 0; i < data.length; ++i) doubled[i] = (byte) Math.min(255, 2 * (data[i] & 0xff));
    try (Context ctx = FerryTest.cpuContext(); Transform plain = new Transform(); Transform bright = new Transform();
         Augment a = new Augment().setBrightness(2, 2)) {
      bright.setAugment(a);
      float[] got = convert(ctx, data, bright);
      assertArrayEquals(convert(ctx, doubled, plain), got);
      for (int i = 0; i < got.length; ++i)
        assertEquals(Math.min(255, 2 * (data[i] & 0xff)) / 255.0f, got[i], 1e-6f, "element " + i);
    }
  }

  /** The FerryException.InvalidArgument that `bad` gives at submit and at draw; its message names `field`. */
  private static void rejects(String field, Consumer<Augment> bad) {
    byte[] data = pixels();
    try (Context ctx = FerryTest.cpuContext(); Transform t = new Transform(); Augment a = new Augment()) {
      bad.accept(a);
      t.setResize(4, 4).setAugment(a);
      FerryException e = assertThrows(FerryException.InvalidArgument.class, () -> convert(ctx, data, t));
      assertTrue(e.getMessage().contains(field), e.getMessage());
      e = assertThrows(FerryException.InvalidArgument.class, () -> draw(a));
      assertTrue(e.getMessage().contains(field), e.getMessage());
    }
  }

  @Test
  void badFieldsRaiseFerrysMessage() {
    rejects("augment.scale[1] is 1.5", a -> a.setScale(0.5f, 1.5f));
    rejects("augment.brightness is [1.4, 0.6]: the range is inverted", a -> a.setBrightness(1.4f, 0.6f));
    rejects("augment.hue[0] is -0.7", a -> a.setHue(-0.7f, 0));
    rejects("augment.flip_x_probability is 2", a -> a.setFlipXProbability(2));
    rejects("augment.padding is 4", a -> a.setPadding(4)); // only a RANDOM crop is padded
    rejects("augment.erase_value[0] is ", a -> a.setEraseValue(Float.NaN));
    rejects("augment.first_index is -1", a -> a.setFirstIndex(-1));
    FerryException e = assertThrows(FerryException.InvalidArgument.class, () -> AugmentCrop.parse("zoom"));
    assertTrue(e.getMessage().contains("augment.crop is \"zoom\""), e.getMessage());
    try (Augment a = new Augment()) {
      e = assertThrows(FerryException.InvalidArgument.class, () -> a.setEraseValue(1, 2, 3, 4, 5));
      assertTrue(e.getMessage().contains("augment.erase_value has 5 entries"), e.getMessage());
      e = assertThrows(FerryException.InvalidArgument.class, () -> Augment.draw(a, new long[] {1}, new long[0], 1, 1));
      assertTrue(e.getMessage().contains("h has 1 entries but w has 0"), e.getMessage());
      e = assertThrows(FerryException.InvalidArgument.class, () -> a.requestDrawn(-1));
      assertTrue(e.getMessage().contains("n is -1"), e.getMessage());
      // A crop needs the output size (ferry's message names augment.crop).
      a.setCrop(AugmentCrop.CROP_CENTER);
      try (Context ctx = FerryTest.cpuContext(); Transform t = new Transform().setAugment(a)) {
        e = assertThrows(FerryException.InvalidArgument.class, () -> convert(ctx, pixels(), t));
        assertTrue(e.getMessage().contains("augment.crop"), e.getMessage());
      }
    }
  }

  @Test
  void aClosedAugmentIsRefusedAndAHeldOneStaysAlive() {
    byte[] data = pixels();
    try (Context ctx = FerryTest.cpuContext(); Transform held = new Transform(); Transform mirrored = new Transform()) {
      held.setAugment(new Augment().setFlipXProbability(1)); // only the Transform refers to it
      for (int i = 0; i < 3; ++i) System.gc(); // a finalized Augment would free the struct the transform reads
      mirrored.setMirror(Mirror.X.swigValue());
      assertArrayEquals(convert(ctx, data, mirrored), convert(ctx, data, held));
      held.getAugment().close();
      assertThrows(FerryException.InvalidHandle.class, () -> held.getAugment().getSeed()); // not a crash
      assertThrows(FerryException.InvalidHandle.class, () -> held.getAugment().setScale(0.5f, 1));
      FerryException e = assertThrows(FerryException.InvalidHandle.class, () -> convert(ctx, data, held));
      assertTrue(e.getMessage().contains("transform.augment is closed"), e.getMessage());
      assertThrows(FerryException.InvalidHandle.class, () -> held.setAugment(held.getAugment()));
      held.setAugment(null);
      float[] plain = convert(ctx, data, held);
      assertEquals((data[0] & 0xff) / 255.0f, plain[0], 1e-6f);
    }
  }

  /** Sources of N x H x W x 3 pixels. */
  private static List<Source> sources(int count) {
    List<Source> list = new ArrayList<>();
    for (int i = 0; i < count; ++i) {
      ByteBuffer buffer = ByteBuffer.allocateDirect((int) (N * H * W * 3));
      buffer.put(pixels()).flip();
      list.add(new Source().setShape(N, H, W, 3).setBuffer(buffer));
    }
    return list;
  }

  @Test
  void prefetchStepsTheAugmentPerBatch() {
    List<Source> list = sources(4);
    try (Context ctx = FerryTest.cpuContext(); Transform t = new Transform(); Augment a = busy(10);
         Augment expect = busy(0)) {
      t.setResize(4, 4);
      a.requestDrawn(N);
      int seen = 0;
      try (Prefetcher batches = ctx.prefetch(list, t, a)) {
        while (batches.hasNext()) {
          assertEquals(10 + seen, batches.step());
          try (Batch batch = batches.next()) {
            batch.await();
            expect.setStep(10 + seen);
            assertArrayEquals(draw(expect), batch.drawn(), "batch " + seen);
          }
          seen++;
        }
      }
      assertEquals(4, seen);
      assertEquals(14, a.getStep());
      assertNull(t.getAugment()); // held only while each batch was submitted
      // Leaving early: the batches submitted ahead are not counted.
      try (Prefetcher batches = ctx.prefetch(list, t, a, null, 2)) {
        try (Batch batch = batches.next()) {
          assertEquals(N, batch.drawn().length);
          assertEquals(17, a.getStep()); // this one and two ahead
          assertEquals(15, batches.step());
        }
      }
      assertEquals(15, a.getStep());
    } finally {
      for (Source s : list) s.close();
    }
  }
}
