package io.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Collections;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A batch of images of different sizes (Source.setImages, ferry_source.sample_descs) on the CPU backend. */
class ImagesTest {
  /** h, w of the three images; 3 channels. */
  private static final int[][] SIZES = {{5, 7}, {9, 4}, {6, 11}};

  private static byte[] pixels(int bytes, long seed) {
    byte[] out = new byte[bytes];
    new Random(seed).nextBytes(out);
    return out;
  }

  private static Transform resizeTo4x3() {
    Transform t = new Transform();
    t.setResize(4, 3).setInterpolation("linear");
    return t;
  }

  /** The batch's float32 output as n rows of equal length. */
  private static float[][] outputRows(Batch batch, int n) {
    batch.await();
    try (TensorInfo info = batch.output()) {
      float[] all = new float[(int) (info.getBytes() / 4)];
      Ferry.asByteBuffer(info.getData(), info.getBytes()).order(ByteOrder.nativeOrder()).asFloatBuffer().get(all);
      float[][] rows = new float[n][];
      for (int i = 0; i < n; ++i) rows[i] = Arrays.copyOfRange(all, i * all.length / n, (i + 1) * all.length / n);
      return rows;
    }
  }

  /** One packed h x w x 3 image submitted alone, as a byte[] of one sample. */
  private static float[] alone(Context ctx, Transform t, byte[] image, long h, long w, Layout layout) {
    try (Source source = new Source().setShape(1, h, w, 3)) {
      source.setLayout(layout);
      try (Batch batch = ctx.submit(source, image, t)) {
        return outputRows(batch, 1)[0];
      }
    }
  }

  @Test
  void byteArraysOfThreeSizesResizeAsEachAlone() {
    try (Context ctx = FerryTest.cpuContext(); Transform t = resizeTo4x3(); Source source = new Source()) {
      byte[][] images = new byte[3][];
      Source.Image[] list = new Source.Image[3];
      for (int i = 0; i < 3; ++i) {
        images[i] = pixels(SIZES[i][0] * SIZES[i][1] * 3, i);
        list[i] = Source.Image.of(images[i], SIZES[i][0], SIZES[i][1], 3);
      }
      source.setImages(list);
      assertEquals(3, source.getN());
      assertEquals(3, source.getC());
      try (TensorInfo info = Ferry.transformOutputInfo(source, t)) { // the arrays pinned for the call
        assertArrayEquals(new long[] {3, 3, 3, 4}, info.shape());
      }
      float[][] rows;
      try (Batch batch = ctx.submit(source, t)) {
        rows = outputRows(batch, 3);
        try (TensorInfo info = batch.output()) {
          assertArrayEquals(new long[] {3, 3, 3, 4}, info.shape());
        }
      }
      for (int i = 0; i < 3; ++i)
        assertArrayEquals(alone(ctx, t, images[i], SIZES[i][0], SIZES[i][1], Layout.NHWC), rows[i], "sample " + i);
      // convert (ferry_transform_apply) pins them for the call too.
      ByteBuffer converted = ByteBuffer.allocateDirect(3 * 3 * 3 * 4 * 4).order(ByteOrder.nativeOrder());
      try (Output output = new Output()) {
        output.setData(Ferry.directBufferAddress(converted));
        output.setBytes(converted.capacity());
        ctx.convert(source, t, output);
      }
      for (int i = 0; i < 3; ++i) {
        float[] row = new float[36];
        converted.asFloatBuffer().position(36 * i).get(row);
        assertArrayEquals(rows[i], row, "converted sample " + i);
      }
    }
  }

  @Test
  void directBuffersWithRowStridesResizeAsEachAlone() {
    // NHWC and NCHW; image 1 has 5 bytes of padding after each row (rowStride).
    for (Layout layout : new Layout[] {Layout.NHWC, Layout.NCHW}) {
      try (Context ctx = FerryTest.cpuContext(); Transform t = resizeTo4x3(); Source source = new Source()) {
        source.setLayout(layout);
        byte[][] packed = new byte[3][];
        Source.Image[] list = new Source.Image[3];
        for (int i = 0; i < 3; ++i) {
          int h = SIZES[i][0], w = SIZES[i][1];
          packed[i] = pixels(h * w * 3, 10 + i);
          int rows = layout == Layout.NHWC ? h : 3 * h, row = layout == Layout.NHWC ? w * 3 : w;
          int stride = i == 1 ? row + 5 : row;
          ByteBuffer buffer = ByteBuffer.allocateDirect(rows * stride);
          for (int r = 0; r < rows; ++r) {
            buffer.position(r * stride);
            buffer.put(packed[i], r * row, row);
          }
          buffer.clear();
          list[i] = i == 1 ? Source.Image.of(buffer, h, w, 3, stride) : Source.Image.of(buffer, h, w, 3);
        }
        source.setImages(Arrays.asList(list));
        float[][] rows;
        try (Batch batch = ctx.submit(source, t)) {
          rows = outputRows(batch, 3);
        }
        for (int i = 0; i < 3; ++i)
          assertArrayEquals(alone(ctx, t, packed[i], SIZES[i][0], SIZES[i][1], layout), rows[i],
                            layout + " sample " + i);
      }
    }
  }

  @Test
  void setBufferGoesBackToOneBuffer() {
    try (Context ctx = FerryTest.cpuContext(); Transform t = resizeTo4x3(); Source source = new Source()) {
      source.setImages(Source.Image.of(new byte[5 * 7 * 3], 5, 7, 3));
      ByteBuffer one = ByteBuffer.allocateDirect(2 * 2 * 3);
      source.setShape(1, 2, 2, 3).setBuffer(one);
      try (Batch batch = ctx.submit(source, t)) {
        assertEquals(1, outputRows(batch, 1).length);
      }
    }
  }

  private static void assertRefused(String name, Runnable call) {
    FerryException.InvalidArgument e = assertThrows(FerryException.InvalidArgument.class, call::run);
    assertTrue(e.getMessage().contains(name), e.getMessage());
  }

  @Test
  void badImagesThrowNamingThem() {
    try (Source source = new Source()) {
      byte[] small = new byte[5 * 7 * 3];
      assertRefused("images[1] has 1 channels but images[0] has 3",
          () -> source.setImages(Source.Image.of(small, 5, 7, 3), Source.Image.of(small, 5, 7, 1)));
      assertRefused("images[2] is null",
          () -> source.setImages(Source.Image.of(small, 5, 7, 3), Source.Image.of(small, 5, 7, 3), null));
      assertRefused("images[0] has null pixels", () -> source.setImages(Source.Image.of((byte[]) null, 5, 7, 3)));
      assertRefused("images is empty", () -> source.setImages());
      assertRefused("images is empty", () -> source.setImages(Collections.<Source.Image>emptyList()));
      assertRefused("images[1] is 6 x 7 x 3", // 126 bytes, the array holds 105
          () -> source.setImages(Source.Image.of(small, 5, 7, 3), Source.Image.of(small, 6, 7, 3)));
      assertRefused("images[0] is 5 x 7 x 3 with rows 22 bytes apart",
          () -> source.setImages(Source.Image.of(small, 5, 7, 3, 22)));
      assertRefused("images[0].rowStride is 20", () -> source.setImages(Source.Image.of(small, 5, 7, 3, 20)));
      assertRefused("images[0] is in a heap ByteBuffer",
          () -> source.setImages(Source.Image.of(ByteBuffer.allocate(105), 5, 7, 3)));
      assertRefused("images[0] is 0 x 7 x 3", () -> source.setImages(Source.Image.of(small, 0, 7, 3)));
      assertEquals(0, source.getN()); // nothing set by a refused call
    }
  }

  @Test
  void withoutAResizeFerryNamesTheSizes() {
    try (Context ctx = FerryTest.cpuContext(); Source source = new Source()) {
      source.setImages(Source.Image.of(new byte[5 * 7 * 3], 5, 7, 3), Source.Image.of(new byte[9 * 4 * 3], 9, 4, 3));
      FerryException.InvalidArgument e =
          assertThrows(FerryException.InvalidArgument.class, () -> ctx.submit(source).close());
      assertTrue(e.getMessage().contains("source.sample_descs[1]"), e.getMessage());
    }
  }
}
