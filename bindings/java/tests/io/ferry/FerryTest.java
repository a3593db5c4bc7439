package io.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FerryTest {
  static Context cpuContext() {
    try (ContextOptions options = new ContextOptions()) {
      options.setDeviceKind(DeviceKind.CPU);
      options.setCpuThreads(2);
      return new Context(options);
    }
  }

  @Test
  void versionMatchesTheHeader() {
    assertEquals(FerryConstants.FERRY_VERSION_NUMBER, Ferry.version());
    assertTrue(Ferry.versionString().startsWith("0.2.0"));
    assertEquals("FERRY_ERR_INVALID_HANDLE", Ferry.statusString(Status.ERR_INVALID_HANDLE));
  }

  @Test
  void cpuContextIsAutoCloseable() {
    try (Context ctx = cpuContext()) {
      assertEquals(DeviceKind.CPU, ctx.deviceKind());
    }
  }

  @Test
  void badOptionThrowsWithFerrysMessage() {
    try (ContextOptions options = new ContextOptions()) {
      options.setStreamCount(1000);
      FerryException.InvalidArgument e =
          assertThrows(FerryException.InvalidArgument.class, () -> new Context(options));
      assertEquals(Status.ERR_INVALID_ARGUMENT, e.status());
      assertTrue(e.getMessage().contains("stream_count"), e.getMessage());
      assertTrue(e.getMessage().contains("1000"), e.getMessage());
    }
  }

  @Test
  void useAfterCloseAndCloseTwice() {
    Context ctx = cpuContext();
    ctx.close();
    ctx.close(); // idempotent
    FerryException.InvalidHandle e = assertThrows(FerryException.InvalidHandle.class, ctx::deviceKind);
    assertTrue(e.getMessage().contains("ctx"), e.getMessage());
    // A closed struct's fields and methods throw too (they crashed the JVM before).
    Transform t = new Transform();
    t.close();
    e = assertThrows(FerryException.InvalidHandle.class, t::getResizeW);
    assertTrue(e.getMessage().contains("the Transform is closed"), e.getMessage());
    assertThrows(FerryException.InvalidHandle.class, () -> t.setChannelMap(2, 1, 0));
  }

  @Test
  void cudaWithoutGpuIsNoDevice() {
    assumeTrue(Ferry.deviceCount() == 0, "a GPU is present");
    try (ContextOptions options = new ContextOptions()) {
      options.setDeviceKind(DeviceKind.CUDA);
      assertThrows(FerryException.NoDevice.class, () -> new Context(options));
    }
    assertThrows(FerryException.class, () -> Ferry.deviceProperties(0));
  }

  @Test
  void transformArraysAreChecked() {
    try (Transform t = new Transform()) {
      t.setMean(new float[] {0.5f, 0.25f, 0.125f});
      assertEquals(0.25f, t.meanAt(1));
      FerryException.InvalidArgument e =
          assertThrows(FerryException.InvalidArgument.class, () -> t.setMean(new float[5]));
      assertTrue(e.getMessage().contains("mean has 5 values"), e.getMessage());
      assertThrows(FerryException.InvalidArgument.class, () -> t.setMean());
      assertThrows(FerryException.InvalidArgument.class, () -> t.setStd((float[]) null));
      assertThrows(FerryException.OutOfRange.class, () -> t.meanAt(4));
      assertThrows(FerryException.InvalidArgument.class, () -> t.setChannelMap(0, 0, 0, 0, 0)); // a length, not an index
      assertEquals(DType.FLOAT32, t.getOutDtype());
    }
  }

  @Test
  void anOutputTooSmallIsOutputTooSmall() {
    try (Context ctx = cpuContext(); Source source = new Source().setShape(1, 2, 2, 3); Output output = new Output()) {
      long out = ctx.deviceAlloc(16);
      output.setData(out);
      output.setBytes(16); // float32 [1, 3, 2, 2] needs 48
      FerryException.OutputTooSmall e = assertThrows(FerryException.OutputTooSmall.class,
          () -> ctx.submit(source, pixels(12), null, output, null));
      assertTrue(e.getMessage().contains("output.bytes is 16"), e.getMessage());
      ctx.deviceFree(out);
    }
  }

  @Test
  void nonDirectBufferIsRejected() {
    try (Source s = new Source()) {
      assertThrows(FerryException.InvalidArgument.class, () -> s.setBuffer(ByteBuffer.allocate(16)));
      assertThrows(FerryException.InvalidArgument.class, () -> s.setBuffer(null));
    }
  }

  @Test
  void contextsFromManyThreads() throws InterruptedException {
    List<Throwable> errors = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 4; ++i) {
      Thread t = new Thread(() -> {
        try {
          for (int k = 0; k < 5; ++k) {
            try (Context ctx = cpuContext()) {
              assertEquals(DeviceKind.CPU, ctx.deviceKind());
            }
          }
        } catch (Throwable e) {
          synchronized (errors) { errors.add(e); }
        }
      });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) t.join();
    assertTrue(errors.isEmpty(), errors.toString());
  }

  private static byte[] pixels(int count) {
    byte[] data = new byte[count];
    for (int i = 0; i < count; ++i) data[i] = (byte) (i * 37);
    return data;
  }

  @Test
  void directBufferBatchOnCpu() {
    byte[] data = pixels(2 * 4 * 5 * 3);
    ByteBuffer direct = ByteBuffer.allocateDirect(data.length);
    direct.put(data).flip();
    try (Context ctx = cpuContext(); Source source = new Source(); Transform t = new Transform()) {
      source.setShape(2, 4, 5, 3).setBuffer(direct);
      t.setOutLayout(Layout.NHWC);
      try (Batch batch = ctx.submit(source, t)) {
        batch.await();
        try (TensorInfo info = batch.output()) {
          assertEquals(DType.FLOAT32, info.getDtype());
          assertEquals(5, info.shapeAt(2));
          ByteBuffer out = Ferry.asByteBuffer(info.getData(), info.getBytes());
          float[] values = new float[data.length];
          out.order(java.nio.ByteOrder.nativeOrder()).asFloatBuffer().get(values);
          float[] want = new float[data.length];
          for (int i = 0; i < data.length; ++i) want[i] = (data[i] & 0xff) / 255.0f;
          assertArrayEquals(want, values, 1e-6f);
        }
      }
    }
  }

  @Test
  void byteArrayBatchAndBadSizes() {
    byte[] data = pixels(1 * 4 * 5 * 3);
    try (Context ctx = cpuContext(); Source source = new Source()) {
      source.setShape(1, 4, 5, 3);
      try (Batch batch = ctx.submit(source, data, null)) {
        batch.await();
        assertTrue(batch.query());
        assertTrue(batch.sourceReusable());
      }
      source.setShape(1, 40, 5, 3); // more pixels than the array holds
      assertThrows(FerryException.class, () -> ctx.submit(source, data, null));
      assertThrows(FerryException.class, () -> ctx.submit(null));
      Batch batch = ctx.submit(new Source().setShape(1, 4, 5, 3), data, null);
      batch.close();
      batch.close();
      assertThrows(FerryException.InvalidHandle.class, batch::await);
    }
  }

  /** Converts `data` (n x 4 x 5 x c, NHWC out) with `t` and returns the float values. */
  /** The float32 output of n x 4 x 5 x c pixels through t (from a byte[]). */
  static float[] convertNhwc(Context ctx, byte[] data, long n, long c, Transform t) {
    try (Source source = new Source().setShape(n, 4, 5, c); Batch batch = ctx.submit(source, data, t)) {
      batch.await();
      try (TensorInfo info = batch.output()) {
        float[] values = new float[(int) (info.getBytes() / 4)];
        Ferry.asByteBuffer(info.getData(), info.getBytes()).order(ByteOrder.nativeOrder()).asFloatBuffer().get(values);
        return values;
      }
    }
  }

  @Test
  void oneMeanOrStdValueIsForEveryChannel() {
    byte[] data = pixels(1 * 4 * 5 * 3);
    try (Context ctx = cpuContext(); Transform t = new Transform()) {
      t.setOutLayout(Layout.NHWC);
      t.setMean(0.5f).setStd(0.25f);
      float[] values = convertNhwc(ctx, data, 1, 3, t);
      for (int i = 0; i < data.length; ++i) {
        assertEquals(((data[i] & 0xff) / 255.0f - 0.5f) / 0.25f, values[i], 1e-5f, "element " + i);
      }
    }
  }

  @Test
  void aChannelMapSetsTheOutputChannels() {
    byte[] data = pixels(1 * 4 * 5 * 3);
    try (Context ctx = cpuContext(); Transform t = new Transform()) {
      t.setOutLayout(Layout.NHWC);
      t.setChannelMap(2, 1, 0); // BGR -> RGB
      assertEquals(3, t.getOutChannels());
      float[] values = convertNhwc(ctx, data, 1, 3, t);
      for (int i = 0; i < data.length; ++i) {
        int mapped = i - i % 3 + (2 - i % 3);
        assertEquals((data[mapped] & 0xff) / 255.0f, values[i], 1e-6f, "element " + i);
      }
    }
  }

  @Test
  void meanAndStdLengthsAreCheckedAgainstTheChannels() {
    byte[] data = pixels(1 * 4 * 5 * 4);
    try (Context ctx = cpuContext(); Source source = new Source().setShape(1, 4, 5, 3); Transform t = new Transform()) {
      t.setMean(0.5f, 0.5f); // 2 values, 3 channels
      FerryException.InvalidArgument e =
          assertThrows(FerryException.InvalidArgument.class, () -> ctx.submit(source, data, t));
      assertTrue(e.getMessage().contains("mean has 2 values"), e.getMessage());
      assertTrue(e.getMessage().contains("3 channels"), e.getMessage());
      t.setMean(0.1f, 0.2f, 0.3f, 0.4f); // 4 values, 3 channels
      e = assertThrows(FerryException.InvalidArgument.class, () -> ctx.submit(source, data, t));
      assertTrue(e.getMessage().contains("mean has 4 values"), e.getMessage());
      assertThrows(FerryException.InvalidArgument.class, () -> Ferry.transformOutputInfo(source, t));
      t.setMean(0.1f, 0.2f, 0.3f);
      t.setStd(1f, 2f);
      e = assertThrows(FerryException.InvalidArgument.class, () -> ctx.submit(source, data, t));
      assertTrue(e.getMessage().contains("std has 2 values"), e.getMessage());
      t.setStd(1f, 2f, 3f);
      ctx.submit(source, data, t).close();

      // A channel map of 2 out of 4, padded to 4: mean and std are for the 2 mapped channels.
      source.setShape(1, 4, 5, 4);
      t.setChannelMap(2, 0);
      t.setPadChannelsTo4(1);
      e = assertThrows(FerryException.InvalidArgument.class, () -> ctx.submit(source, data, t));
      assertTrue(e.getMessage().contains("2 channels (then padded to 4"), e.getMessage());
      t.setMean(0.1f, 0.2f).setStd(0.5f);
      ctx.submit(source, data, t).close();

      // Per-sample rows: one value per channel and sample.
      t.setPerSampleMean(new float[] {0.1f, 0.2f, 0.3f}, 1);
      e = assertThrows(FerryException.InvalidArgument.class, () -> ctx.submit(source, data, t));
      assertTrue(e.getMessage().contains("per_sample_mean has 3 values"), e.getMessage());
    }
  }

  @Test
  void dtypeAndLayoutByName() {
    assertEquals(DType.FLOAT16, DType.parse("f16"));
    assertEquals(DType.BFLOAT16, DType.parse("bfloat16"));
    assertEquals(DType.FLOAT32, DType.parse("Float32"));
    assertEquals(DType.UINT8, DType.parse("u8"));
    assertEquals(Layout.NHWC, Layout.parse("nhwc"));
    FerryException.InvalidArgument e = assertThrows(FerryException.InvalidArgument.class, () -> DType.parse("float64"));
    assertTrue(e.getMessage().contains("\"float64\"") && e.getMessage().contains("bfloat16"), e.getMessage());
    assertThrows(FerryException.InvalidArgument.class, () -> Layout.parse("CHW"));
    try (Transform t = new Transform()) {
      t.setOutDtype("f16").setOutLayout("NHWC");
      assertEquals(DType.FLOAT16, t.getOutDtype());
      assertEquals(Layout.NHWC, t.getOutLayout());
    }
  }

  @Test
  void tensorInfoAndBatchSayWhatTheyAre() {
    byte[] data = pixels(2 * 4 * 5 * 3);
    try (Context ctx = cpuContext(); Source source = new Source().setShape(2, 4, 5, 3)) {
      Batch batch = ctx.submit(source, data, null);
      batch.await();
      String text = batch.toString();
      assertTrue(text.startsWith("Batch(complete, float32 NCHW [2, 3, 4, 5] on CPU"), text);
      try (TensorInfo info = batch.output()) {
        assertTrue(info.toString().startsWith("TensorInfo(float32 NCHW [2, 3, 4, 5] on CPU, 480 bytes"),
            info.toString());
        assertArrayEquals(new long[] {2, 3, 4, 5}, info.shape());
        assertArrayEquals(new long[] {240, 80, 20, 4}, info.strides());
      }
      batch.close();
      assertEquals("Batch(closed)", batch.toString());
    }
  }

  /** The folder or JAR a class was loaded from (JUnit's launcher has its own class path). */
  private static String classPathOf(Class<?> cls) throws Exception {
    return new java.io.File(cls.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();
  }

  /**
   * A direct ByteBuffer source dropped with its Batch (no close) while ferry still converts it, in
   * a child JVM (a crash there fails this test instead of killing the test run).
   */
  @Test
  void droppedSourceStaysAliveUntilFerryIsDone() throws Exception {
    String javaBin = System.getProperty("java.home") + "/bin/java";
    String crashLog = System.getProperty("java.io.tmpdir") + "/ferry_source_lifetime_hs_err_%p.log";
    Process child = new ProcessBuilder(javaBin, "-Xmx256m", "-XX:MaxDirectMemorySize=1g", "-XX:ErrorFile=" + crashLog,
        "-cp", classPathOf(SourceLifetimeMain.class) + java.io.File.pathSeparator + classPathOf(Ferry.class),
        "io.ferry.SourceLifetimeMain").redirectErrorStream(true).start();
    String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(child.waitFor(300, TimeUnit.SECONDS), "the child JVM did not finish");
    assertEquals(0, child.exitValue(), output);
    assertTrue(output.contains("ok"), output);
  }

  private static void assertUnitScale(byte[] data, FloatBuffer values) {
    assertEquals(data.length, values.remaining());
    for (int i = 0; i < data.length; ++i) {
      assertEquals((data[i] & 0xff) / 255.0f, values.get(i), 1e-6f, "element " + i);
    }
  }

  @Test
  void tensorOutlivesItsBatchAndContext() {
    byte[] data = pixels(2 * 4 * 5 * 3);
    Tensor tensor;
    try (Context ctx = cpuContext(); Source source = new Source().setShape(2, 4, 5, 3); Transform t = new Transform()) {
      t.setOutLayout("NHWC");
      try (Batch batch = ctx.submit(source, data, t)) {
        batch.await();
        tensor = batch.retainOutput();
      }
    }
    // What the closed context freed is reused by another context's batches.
    try (Context other = cpuContext(); Source source = new Source().setShape(2, 4, 5, 3)) {
      for (int i = 0; i < 4; ++i) {
        try (Batch batch = other.submit(source, new byte[data.length], null)) { batch.await(); }
      }
    }
    try (Tensor held = tensor) {
      assertTrue(held.toString().startsWith("Tensor(float32 NHWC [2, 4, 5, 3] on CPU, 480 bytes"), held.toString());
      assertArrayEquals(new long[] {2, 4, 5, 3}, held.shape());
      assertEquals(DeviceKind.CPU, held.getDeviceKind());
      assertEquals(480, held.asByteBuffer().capacity());
      assertUnitScale(data, held.asFloatBuffer());
      assertThrows(FerryException.InvalidArgument.class, held::asShortBuffer);
      try (TensorInfo info = held.info()) {
        assertEquals(held.getData(), info.getData());
      }
    }
    tensor.close(); // idempotent
    assertEquals("Tensor(closed)", tensor.toString());
    assertThrows(FerryException.InvalidHandle.class, tensor::getData);
    assertThrows(FerryException.InvalidHandle.class, tensor::asFloatBuffer);
  }

  @Test
  void closingABatchInFlightDoesNotWaitForIt() {
    try (ContextOptions options = new ContextOptions()) {
      options.setDeviceKind(DeviceKind.CPU);
      options.setCpuThreads(1);
      try (Context ctx = new Context(options); Source source = new Source(); Transform t = new Transform()) {
        source.setShape(64, 224, 224, 3).setBuffer(ByteBuffer.allocateDirect(64 * 224 * 224 * 3));
        t.setMirror(Mirror.X.swigValue());
        Batch batch = ctx.submit(source, t);
        batch.close(); // returns while the batch still converts
        try (Stats stats = ctx.stats()) {
          assertEquals(1, stats.getBatchesSubmitted());
          assertEquals(0, stats.getBatchesCompleted(), "close() waited for the batch");
        }
        batch.close(); // a no-op
        assertThrows(FerryException.InvalidHandle.class, batch::query);
      } // close() of the context waits for it
    }
  }

  @Test
  void retainOutputOfAClosedBatchIsInvalidHandle() {
    try (Context ctx = cpuContext(); Source source = new Source().setShape(1, 4, 5, 3)) {
      Batch batch = ctx.submit(source, pixels(60), null);
      batch.close();
      assertThrows(FerryException.InvalidHandle.class, batch::retainOutput);
    }
  }

  private static long deviceInUse(Context ctx) {
    try (Stats stats = ctx.stats()) {
      return stats.getDeviceInUseBytes();
    }
  }

  @Test
  void aDroppedTensorLetsGoOnceItAndItsViewsAreUnreachable() throws InterruptedException {
    byte[] data = pixels(2 * 4 * 5 * 3);
    try (Context ctx = cpuContext(); Source source = new Source().setShape(2, 4, 5, 3); Transform t = new Transform()) {
      t.setOutLayout(Layout.NHWC);
      FloatBuffer view;
      try (Batch batch = ctx.submit(source, data, t)) {
        batch.await();
        view = batch.retainOutput().asFloatBuffer(); // the Tensor itself is dropped at once
      }
      long held = deviceInUse(ctx);
      assertTrue(held >= 480, "device memory in use: " + held);
      for (int i = 0; i < 5; ++i) {
        System.gc();
        Thread.sleep(10);
      }
      assertEquals(held, deviceInUse(ctx), "the view keeps the output");
      assertUnitScale(data, view);
      view = null;
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (deviceInUse(ctx) != 0 && System.nanoTime() < deadline) {
        System.gc();
        Thread.sleep(10);
      }
      assertEquals(0, deviceInUse(ctx), "the Cleaner released the dropped Tensor");
    }
  }
}
